package gossip_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestRebroadcastReachesLateJoiner sets the own card before the node has
// any peer; the card must reach a first neighbour once the mesh forms, be
// re-broadcast on the interval, and reach a node that later connects to
// the neighbour only: the neighbour relays the owner's re-broadcasts of a
// card it already holds without handing them to its sink again.
func TestRebroadcastReachesLateJoiner(t *testing.T) {
	nw := newNet(t, 3, p2pnet.Unconnected)
	reg := prometheus.NewRegistry()
	a := startNodes(t, nw, 0, 1, gossip.RebroadcastInterval(50*time.Millisecond), gossip.Jitter(10*time.Millisecond))[0]
	var refreshMu sync.Mutex
	var refreshes []*adp.Card
	b := startNodes(t, nw, 1, 2, gossip.Registerer(reg), gossip.OnRefresh(func(c *adp.Card, from peer.ID) {
		if p, err := c.PeerID(); err != nil || p != from {
			t.Errorf("refresh of %s from %s", c.ID, from)
		}
		refreshMu.Lock()
		refreshes = append(refreshes, c)
		refreshMu.Unlock()
	}))[0]
	c := startNodes(t, nw, 2, 3)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	v1 := cardtest.Signed(t, a.sk, 1, "alpha")
	if err := a.g.SetOwnCard(v1); err != nil {
		t.Fatal(err)
	}
	if err := nw.Connect(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "card at the first neighbour", func() bool { return b.store.seq(a.agent()) == 1 })
	polltest.For(t, 10*time.Second, "re-broadcasts relayed as refreshes", func() bool { return b.g.Stats().Refreshed >= 2 })

	if err := nw.Connect(ctx, 2, 1); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "card at the late joiner, two hops away", func() bool { return c.store.seq(a.agent()) == 1 })
	if len(c.h.Network().ConnsToPeer(a.h.ID())) != 0 {
		t.Fatal("the late joiner connected to the owner: the test proves nothing")
	}

	v2 := cardtest.Signed(t, a.sk, 2, "alpha")
	if err := a.g.SetOwnCard(v2); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "new card everywhere", func() bool {
		return b.store.seq(a.agent()) == 2 && c.store.seq(a.agent()) == 2
	})
	if n := len(b.store.deliveries()); n != 2 {
		t.Errorf("node b was handed %d cards, want 2 (re-broadcasts are not news)", n)
	}
	if n := len(c.store.deliveries()); n != 2 {
		t.Errorf("node c was handed %d cards, want 2", n)
	}
	if s := b.g.Stats(); s.Rejected != 0 {
		t.Errorf("node b stats %+v, want nothing rejected", s)
	}
	// Every re-broadcast b relayed reached its OnRefresh sink, with the
	// held card's bytes, and only v1 or v2.
	polltest.For(t, 5*time.Second, "refreshes delivered to the sink", func() bool {
		refreshMu.Lock()
		defer refreshMu.Unlock()
		return uint64(len(refreshes)) >= 2
	})
	refreshMu.Lock()
	for _, c := range refreshes {
		if !bytes.Equal(c.Raw(), v1.Raw()) && !bytes.Equal(c.Raw(), v2.Raw()) {
			t.Errorf("refresh with other bytes: seq %d", *c.Seq)
		}
	}
	refreshMu.Unlock()

	// The counters reached Prometheus.
	got := gathered(t, reg)
	if got["accepted/"] != 2 || got["refreshed/"] < 2 {
		t.Errorf("metrics %v, want 2 accepted and at least 2 refreshed", got)
	}
	// A second registration on the same registry fails; after Close it
	// succeeds.
	if _, err := gossip.New(nw.Hosts()[1], gossip.Registerer(reg)); err == nil {
		t.Error("two Gossips registered the same metrics")
	}
	if err := b.g.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := gossip.New(nw.Hosts()[1], gossip.Registerer(reg))
	if err != nil {
		t.Fatalf("New after Close: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}

// gathered returns adp_gossip_messages_total by "result/reason".
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]float64)
	for _, mf := range mfs {
		if mf.GetName() != "adp_gossip_messages_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var result, reason string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "result":
					result = l.GetValue()
				case "reason":
					reason = l.GetValue()
				}
			}
			out[result+"/"+reason] = m.GetCounter().GetValue()
		}
	}
	return out
}

func TestPublishChecksOwnership(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Full)
	nodes := startNodes(t, nw, 0, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	other := cardtest.Signed(t, nodes[1].sk, 1, "beta")
	if err := nodes[0].g.Publish(ctx, other); !errors.Is(err, gossip.ErrNotOwner) {
		t.Fatalf("Publish(other's card) = %v, want ErrNotOwner", err)
	}
	if err := nodes[0].g.SetOwnCard(other); !errors.Is(err, gossip.ErrNotOwner) {
		t.Fatalf("SetOwnCard(other's card) = %v, want ErrNotOwner", err)
	}
	if err := nodes[0].g.PublishOwn(ctx, other); !errors.Is(err, gossip.ErrNotOwner) {
		t.Fatalf("PublishOwn(other's card) = %v, want ErrNotOwner", err)
	}
	if err := nodes[0].g.Publish(ctx, &adp.Card{Name: "unsigned"}); !errors.Is(err, adp.ErrUnsigned) {
		t.Fatalf("Publish(unsigned) = %v, want ErrUnsigned", err)
	}
	if err := nodes[0].g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := nodes[0].g.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	own := cardtest.Signed(t, nodes[0].sk, 1, "alpha")
	if err := nodes[0].g.Publish(ctx, own); !errors.Is(err, gossip.ErrClosed) {
		t.Fatalf("Publish after Close = %v, want ErrClosed", err)
	}
	if err := nodes[0].g.SetOwnCard(own); !errors.Is(err, gossip.ErrClosed) {
		t.Fatalf("SetOwnCard after Close = %v, want ErrClosed", err)
	}
	if err := nodes[0].g.PublishOwn(ctx, own); !errors.Is(err, gossip.ErrClosed) {
		t.Fatalf("PublishOwn after Close = %v, want ErrClosed", err)
	}
}

// TestPublishOwnOnce: a new version of the own card given to PublishOwn
// is published once. (SetOwnCard and Publish together published it twice:
// once at once, once more by the re-broadcast loop.) Before the node has
// a mesh peer, PublishOwn leaves the card to the loop, which publishes it
// once the mesh forms, once however many times it was set meanwhile (as
// a node does at start: SetOwnCard, then the join's PublishOwn).
func TestPublishOwnOnce(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Unconnected)
	nodes := startNodes(t, nw, 0, 2)
	a, b := nodes[0], nodes[1]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	first := cardtest.Signed(t, a.sk, 1, "alpha")
	if err := a.g.SetOwnCard(first); err != nil {
		t.Fatal(err)
	}
	if err := a.g.PublishOwn(ctx, first); err != nil {
		t.Fatalf("PublishOwn without a peer: %v", err)
	}
	if err := nw.Connect(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "first version, published once the mesh formed", func() bool { return b.store.seq(a.agent()) == 1 })

	if err := a.g.PublishOwn(ctx, cardtest.Signed(t, a.sk, 2, "alpha")); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "second version", func() bool { return b.store.seq(a.agent()) == 2 })
	// A third version, published directly, follows on the same stream
	// anything the loop would have sent of the second.
	if err := a.g.Publish(ctx, cardtest.Signed(t, a.sk, 3, "alpha")); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "third version", func() bool { return b.store.seq(a.agent()) == 3 })
	if s := b.g.Stats(); s.Accepted != 3 || s.Refreshed != 0 || s.Ignored != 0 || s.Rejected != 0 {
		t.Errorf("neighbour's stats %+v, want 3 accepted and no second copy (refreshed or ignored)", s)
	}
}

func TestOptions(t *testing.T) {
	nw := newNet(t, 1, p2pnet.Full)
	h := nw.Hosts()[0]
	for name, opts := range map[string][]gossip.Option{
		"interval":         {gossip.RebroadcastInterval(time.Millisecond)},
		"negative jitter":  {gossip.Jitter(-time.Second)},
		"jitter too large": {gossip.RebroadcastInterval(time.Second), gossip.Jitter(time.Second)},
		"logger":           {gossip.Logger(nil)},
		"score":            {gossip.PeerScore(nil, nil)},
		"clock":            {gossip.Clock(nil)},
	} {
		if _, err := gossip.New(h, opts...); !errors.Is(err, gossip.ErrBadOption) {
			t.Errorf("%s: New = %v, want ErrBadOption", name, err)
		}
	}
}
