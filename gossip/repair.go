package gossip

import (
	"slices"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// Outbound stream repair.
//
// go-libp2p-pubsub (v0.17 to v0.19) opens its outbound stream to a peer
// when the peer is identified or announces new protocols, and, when the
// router starts, to every peer already connected. When that attempt fails
// it forgets the peer until the next such event. One can be lost: a peer
// that registers its pubsub handler while our attempt to it is failing
// (two nodes starting together, each connected before its router runs)
// announces its new protocols while the router still counts the attempt
// as running, and the router ignores the announcement. A stream refused
// by the peer's resource manager is lost the same way. Neither router
// then counts the other as a topic peer, for as long as the connection
// lasts: a router lists only the peers it has an outbound stream to, and
// the peer never hears this node's subscription. The connection carries
// no card; on a sparse graph (a ring, a node with few connections) that
// splits the topic.
//
// repairLoop finds such peers, those with a pubsub stream to this node
// over a direct connection (pubsub opens no stream over a limited,
// relayed one) and without an outbound stream of this node's for
// repairGrace, and announces each to the router again, as identify does,
// with an EvtPeerProtocolsUpdated naming the protocol of the peer's own
// stream. A peer is announced at most once a backoff, which doubles from
// repairGrace up to repairMaxWait.
const (
	repairEvery   = time.Second
	repairGrace   = 5 * time.Second
	repairMaxWait = 5 * time.Minute
)

// links follows, from the network's notifications, the peers this node
// is connected to, so that a repair round reads no connection list: at
// 500 nodes in one process, listing every node's connections each second
// was a sixth of the CPU between cards.
type links struct {
	mu    sync.Mutex
	peers map[peer.ID]struct{}
}

// followLinks starts following n's connections; stop ends it.
func followLinks(n network.Network) (l *links, stop func()) {
	l = &links{peers: make(map[peer.ID]struct{})}
	nb := &network.NotifyBundle{
		ConnectedF:    func(_ network.Network, c network.Conn) { l.add(c.RemotePeer()) },
		DisconnectedF: func(n network.Network, c network.Conn) { l.removeIfGone(n, c.RemotePeer()) },
	}
	n.Notify(nb)
	// Peers connected before Notify. A peer read here that disconnects
	// before the check is left out; one that disconnects after it is
	// removed by its Disconnected, which waits for l.mu.
	l.mu.Lock()
	for _, p := range n.Peers() {
		if n.Connectedness(p) == network.Connected {
			l.peers[p] = struct{}{}
		}
	}
	l.mu.Unlock()
	return l, func() { n.StopNotify(nb) }
}

func (l *links) add(p peer.ID) {
	l.mu.Lock()
	l.peers[p] = struct{}{}
	l.mu.Unlock()
}

// removeIfGone drops p once n has no connection to it. Connectedness is
// read under l.mu: a connection that n adds after the read is announced
// by a Connected that waits for l.mu, so its add comes after the delete.
// (The swarm notifies outside its own locks.)
func (l *links) removeIfGone(n network.Network, p peer.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n.Connectedness(p) != network.Connected {
		delete(l.peers, p)
	}
}

// without returns the connected peers for which has is false.
func (l *links) without(has func(peer.ID) bool) []peer.ID {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ps []peer.ID
	for p := range l.peers {
		if !has(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// halfLinked is what repairLoop knows of a peer without an outbound stream.
type halfLinked struct {
	next time.Time     // when it may be announced (again)
	wait time.Duration // the backoff after the next announcement
}

func (g *Gossip) repairLoop(em event.Emitter, l *links, stop func()) {
	defer g.wg.Done()
	defer em.Close()
	defer stop()
	tick := time.NewTicker(g.cfg.repairEvery)
	defer tick.Stop()
	half := make(map[peer.ID]*halfLinked)
	for {
		select {
		case <-g.loopCtx.Done():
			return
		case <-tick.C:
		}
		g.repair(em, l, half, g.cfg.now())
	}
}

// repair runs one round of repairLoop at now; half carries the state of
// the peers found half-linked from round to round. A peer with an
// outbound stream, nearly every peer, costs one lookup: only the others
// have their streams read.
func (g *Gossip) repair(em event.Emitter, l *links, half map[peer.ID]*halfLinked, now time.Time) {
	seen := make(map[peer.ID]bool, len(half))
	for _, p := range l.without(g.mesh.hasOutbound) {
		proto, ok := inboundPubsub(g.h, p)
		if !ok {
			continue
		}
		seen[p] = true
		h := half[p]
		if h == nil {
			half[p] = &halfLinked{next: now.Add(repairGrace), wait: repairGrace}
			continue
		}
		if now.Before(h.next) {
			continue
		}
		if err := em.Emit(event.EvtPeerProtocolsUpdated{Peer: p, Added: []protocol.ID{proto}}); err != nil {
			return // the bus is closing
		}
		g.count.repaired.Add(1)
		if g.prom != nil {
			g.prom.repairs.Inc()
		}
		g.cfg.log.Info("gossip: outbound stream missing; peer announced to the router again", "peer", p, "after", h.wait)
		h.next = now.Add(h.wait)
		h.wait = min(2*h.wait, repairMaxWait)
	}
	for p := range half {
		if !seen[p] {
			delete(half, p)
		}
	}
}

// inboundPubsub reports whether p has a pubsub stream to h over a direct
// connection, and the protocol of that stream.
func inboundPubsub(h host.Host, p peer.ID) (protocol.ID, bool) {
	for _, c := range h.Network().ConnsToPeer(p) {
		if c.Stat().Limited {
			continue
		}
		for _, s := range c.GetStreams() {
			if s.Stat().Direction == network.DirInbound && slices.Contains(pubsub.GossipSubDefaultProtocols, s.Protocol()) {
				return s.Protocol(), true
			}
		}
	}
	return "", false
}
