package p2phost

import (
	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/protocol"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
)

// Resource-manager sizing of a node's host (NodeLimits). libp2p scales
// its defaults with memory and file descriptors; a node pins both so that
// every node of a testnet gets the same limits whatever the machine, then
// raises the limits that a busy agent (many concurrent invocations from
// one caller) would otherwise hit: the default allows about 75 inbound
// streams per peer per protocol.
const (
	rcmgrMemory = 1 << 30 // bytes the scaled limits assume
	rcmgrFDs    = 4096    // file descriptors the scaled limits assume

	// per protocol (all peers) and per peer per protocol, for the
	// invocation protocol.
	invokeStreams        = 8192
	invokeStreamsPerPeer = 1024
	invokeMemory         = 256 << 20
	invokeMemoryPerPeer  = 64 << 20

	// per peer, all protocols.
	peerStreams = 2048

	// whole node: connections, above the connection manager's high water
	// mark (libp2p warns when the resource manager allows fewer).
	systemConns = 1024
)

// NodeLimits returns the fixed resource limits of a node's host, with
// the invocation limits for each protocol of raised.
func NodeLimits(raised ...protocol.ID) rcmgr.ConcreteLimitConfig {
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	for _, p := range raised {
		limits.AddProtocolLimit(p,
			rcmgr.BaseLimit{Streams: invokeStreams, StreamsInbound: invokeStreams / 2, StreamsOutbound: invokeStreams / 2, Memory: invokeMemory},
			rcmgr.BaseLimitIncrease{})
		limits.AddProtocolPeerLimit(p,
			rcmgr.BaseLimit{Streams: invokeStreamsPerPeer, StreamsInbound: invokeStreamsPerPeer / 2, StreamsOutbound: invokeStreamsPerPeer / 2, Memory: invokeMemoryPerPeer},
			rcmgr.BaseLimitIncrease{})
	}
	limits.SystemBaseLimit.Conns = systemConns
	limits.SystemBaseLimit.ConnsInbound = systemConns / 2
	limits.SystemBaseLimit.ConnsOutbound = systemConns
	limits.PeerBaseLimit.Streams = peerStreams
	limits.PeerBaseLimit.StreamsInbound = peerStreams / 2
	limits.PeerBaseLimit.StreamsOutbound = peerStreams / 2
	return limits.Scale(rcmgrMemory, rcmgrFDs)
}
