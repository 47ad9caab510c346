package gossip

import (
	"slices"
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

// halfLinked is what repairLoop knows of a peer without an outbound stream.
type halfLinked struct {
	next time.Time     // when it may be announced (again)
	wait time.Duration // the backoff after the next announcement
}

func (g *Gossip) repairLoop(em event.Emitter) {
	defer g.wg.Done()
	defer em.Close()
	tick := time.NewTicker(g.cfg.repairEvery)
	defer tick.Stop()
	half := make(map[peer.ID]*halfLinked)
	for {
		select {
		case <-g.loopCtx.Done():
			return
		case <-tick.C:
		}
		g.repair(em, half, g.cfg.now())
	}
}

// repair runs one round of repairLoop at now; half carries the state of
// the peers found half-linked from round to round.
func (g *Gossip) repair(em event.Emitter, half map[peer.ID]*halfLinked, now time.Time) {
	seen := make(map[peer.ID]bool, len(half))
	for p, proto := range inboundPubsub(g.h) {
		if g.mesh.hasOutbound(p) || g.h.Network().Connectedness(p) != network.Connected {
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

// inboundPubsub returns the peers with a pubsub stream to h over a direct
// connection, each with the protocol of that stream.
func inboundPubsub(h host.Host) map[peer.ID]protocol.ID {
	in := make(map[peer.ID]protocol.ID)
	for _, c := range h.Network().Conns() {
		if c.Stat().Limited {
			continue
		}
		for _, s := range c.GetStreams() {
			if s.Stat().Direction == network.DirInbound && slices.Contains(pubsub.GossipSubDefaultProtocols, s.Protocol()) {
				in[c.RemotePeer()] = s.Protocol()
			}
		}
	}
	return in
}
