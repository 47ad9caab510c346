package ratelimit

import (
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// GuardConnect names the ConnGate in the "guard" label: inbound
// connections, per source network.
const GuardConnect = "connect"

// ConnGate is a connmgr.ConnectionGater that admits inbound connections
// at most at a rate per source network (IPv4 /24, IPv6 /48), at accept:
// before the security handshake, so that a refused connection costs the
// node an accept and a close, not a key exchange. Fresh identities minted
// on one machine each need a connection, so this bounds how fast they
// arrive. Every other decision is left to next (nil: admit). Safe for
// concurrent use.
type ConnGate struct {
	next connmgr.ConnectionGater
	net  networkLimiter
}

var _ connmgr.ConnectionGater = (*ConnGate)(nil)

// NewConnGate returns a gate admitting rate inbound connections per
// source network, counting refusals on m (nil: not counted) under guard
// "connect" and scope "network". With skipLoopback, loopback connections
// are not charged (the nodes of a local testnet share 127.0.0.0/24).
func NewConnGate(rate Rate, skipLoopback bool, m *Metrics, next connmgr.ConnectionGater) *ConnGate {
	g := &ConnGate{next: next, net: networkLimiter{lim: New(rate), skipLoopback: skipLoopback}}
	if m != nil {
		g.net.refused = m.Counter(GuardConnect, ScopeNetwork)
	}
	return g
}

// InterceptAccept charges an inbound connection to its source network.
func (g *ConnGate) InterceptAccept(cm network.ConnMultiaddrs) bool {
	if g.next != nil && !g.next.InterceptAccept(cm) {
		return false
	}
	ok, _ := g.net.allow(AddrOf(cm.RemoteMultiaddr()))
	return ok
}

// InterceptPeerDial defers to next.
func (g *ConnGate) InterceptPeerDial(p peer.ID) bool {
	return g.next == nil || g.next.InterceptPeerDial(p)
}

// InterceptAddrDial defers to next.
func (g *ConnGate) InterceptAddrDial(p peer.ID, a ma.Multiaddr) bool {
	return g.next == nil || g.next.InterceptAddrDial(p, a)
}

// InterceptSecured defers to next.
func (g *ConnGate) InterceptSecured(d network.Direction, p peer.ID, cm network.ConnMultiaddrs) bool {
	return g.next == nil || g.next.InterceptSecured(d, p, cm)
}

// InterceptUpgraded defers to next.
func (g *ConnGate) InterceptUpgraded(c network.Conn) (bool, control.DisconnectReason) {
	if g.next == nil {
		return true, 0
	}
	return g.next.InterceptUpgraded(c)
}
