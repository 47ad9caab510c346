package gossip_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// holder is a node's card store as far as gossip sees it: Held reads it,
// OnCard writes it (keeping the newest) and counts every delivery.
type holder struct {
	mu        sync.Mutex
	cards     map[string]*adp.Card
	delivered []*adp.Card
	arrived   map[string]time.Time // agent id -> arrival of the newest card
}

func newHolder() *holder {
	return &holder{cards: make(map[string]*adp.Card), arrived: make(map[string]time.Time)}
}

func (s *holder) held(agentID string) *adp.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cards[agentID]
}

func (s *holder) onCard(c *adp.Card, _ peer.ID) {
	now := time.Now()
	p, err := c.PeerID()
	if err != nil {
		panic(err) // gossip hands over verified cards only
	}
	id := adp.AgentID(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delivered = append(s.delivered, c)
	if adp.Compare(c, s.cards[id]) > 0 {
		s.cards[id] = c
		s.arrived[id] = now
	}
}

// seq returns the seq of the card held for agentID, 0 when none.
func (s *holder) seq(agentID string) uint64 {
	c := s.held(agentID)
	if c == nil || c.Seq == nil {
		return 0
	}
	return *c.Seq
}

func (s *holder) deliveries() []*adp.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*adp.Card(nil), s.delivered...)
}

// node is a host with a Gossip and a holder.
type node struct {
	h     host.Host
	sk    crypto.PrivKey
	g     *gossip.Gossip
	store *holder
}

func (n *node) agent() string { return adp.AgentID(n.h.ID()) }

// startNodes starts a Gossip on the hosts of nw with index in [from, to).
func startNodes(t testing.TB, nw *p2pnet.Network, from, to int, opts ...gossip.Option) []*node {
	t.Helper()
	var nodes []*node
	for i, h := range nw.Hosts()[from:to] {
		sk, _ := nw.Key(from + i)
		n := &node{h: h, sk: sk, store: newHolder()}
		g, err := gossip.New(h, append([]gossip.Option{gossip.Held(n.store.held), gossip.OnCard(n.store.onCard)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		n.g = g
		t.Cleanup(func() {
			if err := g.Close(); err != nil {
				t.Errorf("close gossip: %v", err)
			}
		})
		nodes = append(nodes, n)
	}
	return nodes
}

func newNet(t testing.TB, n int, topo p2pnet.Topology, opts ...p2pnet.Option) *p2pnet.Network {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nw, err := p2pnet.New(ctx, n, append([]p2pnet.Option{p2pnet.WithTopology(topo)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the services' own cleanups.
	t.Cleanup(func() {
		if err := nw.Close(); err != nil {
			t.Errorf("close network: %v", err)
		}
	})
	return nw
}

// waitMeshed waits until every node's mesh holds all its topic peers, or
// at least meshLow of them: then a publication reaches every node.
func waitMeshed(t testing.TB, nodes []*node) {
	t.Helper()
	const meshLow = 4 // below GossipSub's default D_lo of 5
	polltest.For(t, 15*time.Second, "meshes built", func() bool {
		for _, n := range nodes {
			conns := len(n.h.Network().Peers())
			if conns == 0 || len(n.g.Peers()) < conns || n.g.MeshSize() < min(conns, meshLow) {
				return false
			}
		}
		return true
	})
}

// forget drops the card held for agentID, as a store does when it expires.
func (s *holder) forget(agentID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cards, agentID)
}
