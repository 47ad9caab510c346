package node

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/protocol"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/peering"
)

// Resource-manager sizing. libp2p scales its defaults with memory and file
// descriptors; the node pins both so every node of a testnet gets the same
// limits whatever the machine, then raises the limits that a busy agent
// (many concurrent invocations from one caller) would otherwise hit: the
// default allows about 75 inbound streams per peer per protocol.
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

// hostLimits returns the fixed resource limits of a node host.
func hostLimits(raised []protocol.ID) rcmgr.ConcreteLimitConfig {
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

// newHost builds the libp2p host of a node with the builder the test
// networks share (internal/p2phost): TCP and QUIC on listen, Noise,
// yamux, fixed resource limits (raised for the given protocols) and a
// connection manager with the given water marks, and the reachability
// options (config.Reach.HostOptions). Metrics go nowhere
// global; the node exports its own.
func newHost(sk crypto.PrivKey, listen []string, raised []protocol.ID, low, high int, opts ...p2phost.Option) (host.Host, error) {
	h, err := p2phost.New(sk, append([]p2phost.Option{
		p2phost.WithListen(listen...),
		p2phost.WithQUIC(),
		p2phost.WithLimits(hostLimits(raised)),
		p2phost.WithConnManager(low, high, time.Minute),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	return h, nil
}

// openHost builds the node's host on cfg.Listen, where every address with
// port 0 takes the port it had at the last run when that port is free
// (peering.ReuseListen), and saves the addresses it listens on for the
// next run. When listening on the old ports fails all the same, it logs
// and starts on cfg.Listen as given.
func openHost(sk crypto.PrivKey, cfg Config, gate connmgr.ConnectionGater, raised []protocol.ID, reach ...p2phost.Option) (host.Host, error) {
	file := filepath.Join(cfg.DataDir, peering.ListenFile)
	listen := peering.ReuseListen(file, cfg.Listen, cfg.Logger)
	opts := append(slices.Clip(reach), p2phost.WithConnectionGater(gate))
	h, err := newHost(sk, listen, raised, cfg.ConnLow, cfg.ConnHigh, opts...)
	if err != nil && !slices.Equal(listen, cfg.Listen) {
		cfg.Logger.Warn("cannot listen on the ports of the last run; picking new ones", "err", err)
		h, err = newHost(sk, cfg.Listen, raised, cfg.ConnLow, cfg.ConnHigh, opts...)
	}
	if err != nil {
		return nil, err
	}
	if err := peering.SaveListen(file, h.Network().ListenAddresses()); err != nil {
		cfg.Logger.Warn("listen ports not saved", "err", err)
	}
	return h, nil
}

// hostCloseWait bounds how long Close waits for the libp2p host to close.
const hostCloseWait = 10 * time.Second

// closeWithin runs closeFn and waits at most d for it; past d it returns
// an error and leaves closeFn to finish, or not, on its own. A node's
// shutdown must end, and go-libp2p's host Close can wait for ever: one
// was seen to stop in the AutoNAT v1 client's Close, its unsubscribe
// waiting for an event-bus lock held by an identify push blocked on a
// subscriber that no longer read. That subscriber is the observed-address
// manager's (go-libp2p v0.51 p2p/host/observedaddrs): the host's Close
// stops it first (config.closableBasicHost stops the fx app, then closes
// the host), and its event loop returns without closing its subscription,
// so once that buffer is full every identify event blocks. Node.Close
// therefore closes the connections before the host, so that no identify
// push arrives in between; this bound is for whatever else may block.
func closeWithin(closeFn func() error, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- closeFn() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("node: the libp2p host did not close within %v", d)
	}
}
