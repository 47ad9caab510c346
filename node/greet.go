package node

import (
	"context"
	"slices"
	"sync"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/aitp"
)

// Greeting: when a peer that speaks AITP is identified, the node sends it
// its own card (adp.advertise). GossipSub reaches only the peers that are
// subscribed when a card is published, and the own card is re-broadcast
// only every GossipInterval; the greeting gives a peer that joins later the
// card at once.
const (
	greetConcurrency = 8
	maxGreeted       = 10000 // bound on the memory of greeted peers
)

// subscribeGreetings subscribes to peer identification. New calls it
// before anything can dial (the DHT dials its bootstrap peers as it is
// built), so no early peer is missed; greetLoop also greets the peers
// already connected when it starts.
func (n *Node) subscribeGreetings() (event.Subscription, error) {
	return n.host.EventBus().Subscribe(new(event.EvtPeerIdentificationCompleted), eventbus.BufSize(256))
}

// greetLoop advertises the own card to every AITP peer already identified
// and then to each newly identified one, at most greetConcurrency at a
// time, until ctx ends; a greeting the peer stores (it lacked the card)
// asks the card sync for a republication on the topic. It also hands each
// such peer to the card sync, which pulls the peer's newer cards. It
// closes sub.
func (n *Node) greetLoop(ctx context.Context, sub event.Subscription) {
	defer sub.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, greetConcurrency)
	greet := func(p peer.ID) bool {
		if p != n.self {
			n.sync.Connected(p) // a new connection: pull the peer's newer cards
		}
		if p == n.self || !n.markGreeted(p) {
			return true
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			n.unmarkGreeted(p)
			return false
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			actx, cancel := context.WithTimeout(ctx, fetchTimeout)
			defer cancel()
			stored, err := n.advertiseTo(actx, p)
			if err != nil {
				n.log.Debug("greet peer", "peer", p, "err", err)
				n.unmarkGreeted(p)
			}
			if stored {
				n.sync.Behind() // p lacked the own card: others may too
			}
		}()
		return true
	}
	for _, p := range n.aitpPeers() {
		if !greet(p) {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.Out():
			if !ok {
				return
			}
			e, isID := ev.(event.EvtPeerIdentificationCompleted)
			if isID && slices.Contains(e.Protocols, aitp.ProtocolID) && !greet(e.Peer) {
				return
			}
		}
	}
}

// markGreeted records that p gets the current card and reports whether it
// had not got it yet.
func (n *Node) markGreeted(p peer.ID) bool {
	var seq uint64
	if s := n.Card().Seq; s != nil {
		seq = *s
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if got, ok := n.greeted[p]; ok && got >= seq {
		return false
	}
	if len(n.greeted) >= maxGreeted {
		clear(n.greeted)
	}
	n.greeted[p] = seq
	return true
}

func (n *Node) unmarkGreeted(p peer.ID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.greeted, p)
}
