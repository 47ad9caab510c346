package p2phost

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
)

// The timing of PunchRetry.
const (
	// PunchQuiet is how long a peer's link must have been relayed only,
	// with no hole-punching event with the peer, before PunchRetry tries;
	// then it waits twice as long after each try, up to PunchMaxWait.
	// go-libp2p's hole puncher emits an event at most about 10 s apart
	// (its dial timeout) while it works on a peer.
	PunchQuiet   = 15 * time.Second
	PunchMaxWait = 15 * time.Minute
	// punchTick is how often PunchRetry looks at the links.
	punchTick = 5 * time.Second
	// punchDial bounds a try's dial through the relay.
	punchDial = 30 * time.Second
)

// PunchRetry gives DCUtR hole punching another go on a link that stayed
// relayed. go-libp2p's hole puncher runs on the side that receives a
// relayed connection, once, when the connection opens. A connection that
// arrives before that side's hole-punching service is ready (it waits for
// a public or observed address of its host, polling from 250 ms to 5 s
// apart), or whose three attempts all failed, stays relayed for as long
// as it lasts, and calls pay the relay's round trip and its limits.
//
// So Run looks at the links of the host every few seconds. A peer the
// host reaches only through relayed connections, one of which the host
// dialled itself, is re-dialled once the link has been relayed and quiet
// (no hole-punching event with the peer, see Trace) for PunchQuiet, both
// hosts run the hole-punching protocol (each service is ready), and
// nothing is under way on the link: no call (Run's busy) and no stream
// but those whose owners open them again on a new connection
// (GossipSub's, identify's, ping's, hole punching's and Run's reopened).
// Run then closes its relayed connections to the peer and dials it again
// through the relay, and the peer, receiving a new relayed connection,
// punches. After each try the next waits twice as long (up to
// PunchMaxWait), so that behind a NAT no hole goes through (one that
// randomises ports) a link is re-dialled seldom. A link that became
// direct, or whose peer left, starts afresh.
//
// A try can fail for want of order: when a link closes, the reconnection
// rounds of both hosts (package peering) may dial within half a second,
// each end then receives a relayed connection and punches towards the
// other, and the two punches spoil each other. The next try, twice as
// late, usually finds the way; in the NAT test the link ended direct 36
// to 46 s after the way opened.
//
// A PunchRetry is given to one host, through Reachability.PunchRetry, and
// run by its owner; its methods are safe for concurrent use.
type PunchRetry struct {
	now func() time.Time

	mu    sync.Mutex
	last  map[peer.ID]time.Time // the last hole-punching event with the peer
	links map[peer.ID]*punchLink
}

// punchLink is Run's state of a relayed-only link.
type punchLink struct {
	from time.Time     // when the link was opened, or last tried
	wait time.Duration // how long after from the next try may come
}

// NewPunchRetry returns a PunchRetry with no state.
func NewPunchRetry() *PunchRetry {
	return &PunchRetry{now: time.Now, last: map[peer.ID]time.Time{}, links: map[peer.ID]*punchLink{}}
}

// Trace records a hole-punching event (holepunch.EventTracer): while the
// hole puncher works on a peer, Run leaves the peer alone.
func (r *PunchRetry) Trace(evt *holepunch.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[evt.Remote] = r.now()
}

// Run looks after the links of h until ctx ends, and logs each try to
// log. busy (nil: never) reports whether work with a peer is under way
// that closing its connections would fail; streams of the protocols in
// reopened are taken to be opened again by their owners, like GossipSub's.
func (r *PunchRetry) Run(ctx context.Context, h host.Host, log *slog.Logger, busy func(peer.ID) bool, reopened ...protocol.ID) {
	idle := slices.Clone(idlePrefixes)
	for _, p := range reopened {
		idle = append(idle, string(p))
	}
	if busy == nil {
		busy = func(peer.ID) bool { return false }
	}
	inUse := func(p peer.ID, conns []network.Conn) bool { return busy(p) || carries(conns, idle) }
	// Jittered, so that the rounds do not keep step with another loop of
	// either host that dials the peer (a peer's reconnection rounds): a
	// dial of the peer's made between the close and the new connection
	// gives two hole punches at once, which spoil each other.
	t := time.NewTimer(jitter(punchTick))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			t.Reset(jitter(punchTick))
		}
		for _, p := range r.due(h, inUse) {
			r.retry(ctx, h, p, log, inUse)
		}
	}
}

// due returns the peers whose links are to be re-dialled now, and forgets
// the state of peers no longer linked only through relays.
func (r *PunchRetry) due(h host.Host, inUse func(peer.ID, []network.Conn) bool) []peer.ID {
	now := r.now()
	ready := slices.Contains(h.Mux().Protocols(), holepunch.Protocol)
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.links {
		if !relayedOnly(h.Network().ConnsToPeer(p)) {
			delete(r.links, p)
		}
	}
	for p, at := range r.last {
		if now.Sub(at) > PunchMaxWait && r.links[p] == nil {
			delete(r.last, p)
		}
	}
	var out []peer.ID
	for _, p := range h.Network().Peers() {
		conns := h.Network().ConnsToPeer(p)
		if !relayedOnly(conns) || !slices.ContainsFunc(conns, func(c network.Conn) bool {
			return c.Stat().Direction == network.DirOutbound
		}) {
			continue
		}
		l := r.links[p]
		if l == nil {
			l = &punchLink{from: oldest(conns), wait: PunchQuiet}
			r.links[p] = l
		}
		if now.Sub(l.from) < l.wait || now.Sub(r.last[p]) < PunchQuiet || !ready || inUse(p, conns) {
			continue
		}
		if ok, _ := h.Peerstore().SupportsProtocols(p, holepunch.Protocol); len(ok) == 0 {
			continue
		}
		l.from, l.wait = now, min(2*l.wait, PunchMaxWait)
		out = append(out, p)
	}
	return out
}

// retry closes the relayed connections to p and dials p again at once:
// the peer, receiving the new relayed connection, punches. Were the peer
// to dial first (its own reconnection, say), each side would punch
// towards the other at the same time, and the two attempts spoil each
// other; a dial made at once leaves a window of a relay's round trip.
func (r *PunchRetry) retry(ctx context.Context, h host.Host, p peer.ID, log *slog.Logger, inUse func(peer.ID, []network.Conn) bool) {
	conns := h.Network().ConnsToPeer(p)
	if !relayedOnly(conns) || inUse(p, conns) {
		return
	}
	for _, c := range conns {
		c.Close()
	}
	dctx, cancel := context.WithTimeout(network.WithAllowLimitedConn(ctx, "hole punch retry"), punchDial)
	defer cancel()
	err := h.Connect(dctx, peer.AddrInfo{ID: p})
	log.Info("relayed link re-dialled for hole punching", "peer", p, "err", err)
}

// jitter returns d give or take a fifth, at random.
func jitter(d time.Duration) time.Duration {
	return d*4/5 + rand.N(d*2/5)
}

// relayedOnly reports whether conns is not empty and all of it relayed.
func relayedOnly(conns []network.Conn) bool {
	return len(conns) > 0 && !slices.ContainsFunc(conns, func(c network.Conn) bool { return !IsRelayed(c) })
}

// oldest returns when the oldest of conns (not empty) was opened.
func oldest(conns []network.Conn) time.Time {
	t := conns[0].Stat().Opened
	for _, c := range conns[1:] {
		if o := c.Stat().Opened; o.Before(t) {
			t = o
		}
	}
	return t
}

// idlePrefixes are the protocols whose streams a re-dial may cut: their
// owners open them again on the new connection (GossipSub, identify, ping,
// hole punching).
var idlePrefixes = []string{"/meshsub/", "/floodsub/", "/ipfs/id/", "/ipfs/ping/", string(holepunch.Protocol)}

// carries reports whether any of conns carries a stream a re-dial must
// not cut: one of a protocol no prefix of idle names (a DHT query, say),
// or one still negotiating its protocol.
func carries(conns []network.Conn, idle []string) bool {
	for _, c := range conns {
		for _, s := range c.GetStreams() {
			proto := string(s.Protocol())
			if proto == "" || !slices.ContainsFunc(idle, func(pre string) bool { return strings.HasPrefix(proto, pre) }) {
				return true
			}
		}
	}
	return false
}
