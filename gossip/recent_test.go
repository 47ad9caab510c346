package gossip_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestDroppedCardComesBack: a second copy of an accepted card, published
// again by its owner, is relayed but not delivered, even before the sink
// stored the first; once the node has dropped the card and the
// validator's short-term memory has lapsed, the next copy is delivered
// again.
func TestDroppedCardComesBack(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Full)
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := startNodes(t, nw, 0, 1)[0]
	b := startNodes(t, nw, 1, 2, gossip.Clock(clock.Now))[0]
	waitMeshed(t, []*node{a, b})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	card := cardtest.Signed(t, a.sk, 1, "alpha")
	publish := func() {
		t.Helper()
		if err := a.g.Publish(ctx, card); err != nil {
			t.Fatal(err)
		}
	}
	publish()
	polltest.For(t, 5*time.Second, "first copy", func() bool { return b.store.seq(a.agent()) == 1 })

	b.store.forget(a.agent())
	publish()
	polltest.For(t, 5*time.Second, "second copy relayed as a refresh", func() bool { return b.g.Stats().Refreshed == 1 })
	if b.store.held(a.agent()) != nil {
		t.Fatal("second copy delivered within the short-term memory")
	}

	clock.Advance(time.Minute)
	publish()
	polltest.For(t, 5*time.Second, "third copy accepted", func() bool { return b.store.seq(a.agent()) == 1 })
	if s := b.g.Stats(); s.Accepted != 2 || s.Refreshed != 1 || s.Ignored != 0 || s.Rejected != 0 {
		t.Fatalf("stats %+v, want 2 accepted, 1 refreshed", s)
	}
}
