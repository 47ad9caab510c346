package p2phost

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
)

// DefaultPunchWait is how long after it is built a host with reachability
// refuses relayed connections while its hole-punching service has not
// started (Reachability.PunchWait). The service looks for a public
// address when the host is built and 0.25, 0.75, 1.75, 3.75 and 7.75 s
// after, then every 5 s.
const DefaultPunchWait = 10 * time.Second

// HolePunchReady reports whether h's DCUtR hole-punching service has
// started: it has a public address to punch from (its own, or one a peer
// observed) and answers the hole-punching protocol.
//
// go-libp2p punches once for each relayed connection, when it opens, from
// the side that accepted it, and only if that side's service has started
// (libp2p/go-libp2p#3024); the other side must answer, which its service
// does only once started too. The service looks for a public address
// from the host's start, 250 ms to 5 s apart, so a relayed connection
// made before both ends had started stays relayed until it closes (the
// relay's limit ends it: two minutes with relay.DefaultResources). The
// service registers its protocol handler when it starts, which is what
// this reads.
func HolePunchReady(h host.Host) bool {
	return slices.Contains(h.Mux().Protocols(), holepunch.Protocol)
}

// punchGate is the connection gater of a host with reachability: it
// refuses relayed connections, dialled or accepted, until the host's
// hole-punching service has started or the wait has passed, so that no
// relayed connection opens that go-libp2p would never punch through (see
// HolePunchReady). A relayed dial refused then fails; the next relayed
// connection, once the gate is open, gets the hole punch. Every other
// decision is next's (nil: admit).
type punchGate struct {
	next  connmgr.ConnectionGater
	host  *atomic.Pointer[host.Host]
	until time.Time
	open  atomic.Bool
}

var _ connmgr.ConnectionGater = (*punchGate)(nil)

// admitRelayed reports whether a relayed connection may open now.
func (g *punchGate) admitRelayed() bool {
	if g.open.Load() {
		return true
	}
	h := g.host.Load()
	if h == nil {
		return true // nothing dials before the host is built
	}
	if HolePunchReady(*h) || !time.Now().Before(g.until) {
		g.open.Store(true) // and stays open
		return true
	}
	return false
}

func (g *punchGate) InterceptPeerDial(p peer.ID) bool {
	return g.next == nil || g.next.InterceptPeerDial(p)
}

func (g *punchGate) InterceptAddrDial(p peer.ID, a ma.Multiaddr) bool {
	if isRelayed(a) && !g.admitRelayed() {
		return false
	}
	return g.next == nil || g.next.InterceptAddrDial(p, a)
}

func (g *punchGate) InterceptAccept(cm network.ConnMultiaddrs) bool {
	return g.next == nil || g.next.InterceptAccept(cm)
}

func (g *punchGate) InterceptSecured(d network.Direction, p peer.ID, cm network.ConnMultiaddrs) bool {
	if d == network.DirInbound && isRelayed(cm.RemoteMultiaddr()) && !g.admitRelayed() {
		return false
	}
	return g.next == nil || g.next.InterceptSecured(d, p, cm)
}

func (g *punchGate) InterceptUpgraded(c network.Conn) (bool, control.DisconnectReason) {
	if g.next == nil {
		return true, 0
	}
	return g.next.InterceptUpgraded(c)
}
