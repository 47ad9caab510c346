package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

type countingMetrics struct {
	store.Metrics
	refused map[string]int
	removed map[string]int
}

func (m *countingMetrics) Refused(reason string)     { m.refused[reason]++ }
func (m *countingMetrics) CardRemoved(reason string) { m.removed[reason]++ }

func newCountingMetrics() *countingMetrics {
	return &countingMetrics{Metrics: nopMetricsForTest{}, refused: map[string]int{}, removed: map[string]int{}}
}

type nopMetricsForTest struct{}

func (nopMetricsForTest) CardPut(store.Source, store.Outcome) {}
func (nopMetricsForTest) CardRemoved(string)                  {}
func (nopMetricsForTest) TombstoneExpired()                   {}
func (nopMetricsForTest) Corrupt()                            {}
func (nopMetricsForTest) Cards(int)                           {}
func (nopMetricsForTest) Refused(string)                      {}

func putFrom(s *store.Store, c *adp.Card, src store.Source, network string) (bool, error) {
	return s.PutCard(context.Background(), c, src, "test", store.FromNetwork(network))
}

// TestMaxCardsProtectsEstablished fills a bounded store and checks the
// eviction order: a newcomer is refused while every held card is fresh,
// takes the place of a stale card, never of a pinned one, and each
// removal reaches the change feed.
func TestMaxCardsProtectsEstablished(t *testing.T) {
	clk := newClock()
	m := newCountingMetrics()
	s := openMem(t, store.WithClock(clk.Now), store.WithMaxCards(3), store.WithMetrics(m))
	ch, cancel := s.Subscribe(16)
	defer cancel()

	pinned := makeCard(t, newKey(t), cardSpec{seq: 1})
	short := makeCard(t, newKey(t), cardSpec{seq: 1, ttl: 60})
	longKey := newKey(t)
	long := makeCard(t, longKey, cardSpec{seq: 1})
	put(t, s, pinned, store.SourceImport)
	put(t, s, short, store.SourceGossip)
	clk.Advance(time.Second)
	put(t, s, long, store.SourceGossip)
	for range 3 {
		next(t, ch)
	}

	newcomer := makeCard(t, newKey(t), cardSpec{seq: 1})
	if _, err := putFrom(s, newcomer, store.SourceGossip, "ip4:198.51.100.0/24"); !errors.Is(err, store.ErrFull) {
		t.Fatalf("newcomer into a full store of fresh cards: err %v, want ErrFull", err)
	}
	if m.refused[store.RefusedFull] != 1 {
		t.Fatalf("refused %v, want one %q", m.refused, store.RefusedFull)
	}
	// An update of a held agent is never refused.
	long = makeCard(t, longKey, cardSpec{seq: 2})
	if ok, err := putFrom(s, long, store.SourceGossip, ""); err != nil || !ok {
		t.Fatalf("update of a held agent in a full store: stored %v err %v", ok, err)
	}
	next(t, ch)

	clk.Advance(2 * time.Minute) // short's TTL of 60 s ran out: it is stale
	if ok, err := putFrom(s, newcomer, store.SourceGossip, "ip4:198.51.100.0/24"); err != nil || !ok {
		t.Fatalf("newcomer with a stale card held: stored %v err %v", ok, err)
	}
	if c := next(t, ch); c.Kind != store.Removed || c.AgentID != short.ID || c.Reason != store.ReasonEvicted {
		t.Fatalf("feed: %v %s %q, want the stale card removed as evicted", c.Kind, c.AgentID, c.Reason)
	}
	if c := next(t, ch); c.Kind != store.Upserted || c.AgentID != newcomer.ID {
		t.Fatalf("feed: %v %s, want the newcomer upserted", c.Kind, c.AgentID)
	}
	if s.Held(short.ID) != nil || s.Held(pinned.ID) == nil || s.Held(long.ID) == nil || s.Count() != 3 {
		t.Fatalf("after eviction: count %d, short held %v", s.Count(), s.Held(short.ID) != nil)
	}
	if m.removed[store.ReasonEvicted] != 1 {
		t.Fatalf("removed %v, want one evicted", m.removed)
	}
	// A pinned newcomer takes the place of the weakest unpinned card (the
	// newcomer just stored: no tenure, first seen last), never of pinned.
	imported := makeCard(t, newKey(t), cardSpec{seq: 1})
	if ok, err := putFrom(s, imported, store.SourceImport, ""); err != nil || !ok {
		t.Fatalf("import into a full store: stored %v err %v", ok, err)
	}
	if s.Held(newcomer.ID) != nil || s.Held(long.ID) == nil || s.Held(pinned.ID) == nil {
		t.Fatal("import evicted the wrong card")
	}
}

// TestNetworkShare checks that new agents from one source network hold at
// most their share of the bound, while other networks still get in.
func TestNetworkShare(t *testing.T) {
	clk := newClock()
	m := newCountingMetrics()
	s := openMem(t, store.WithClock(clk.Now), store.WithMaxCards(10), store.WithNetworkShare(0.2), store.WithMetrics(m))
	const attacker = "ip4:203.0.113.0/24"
	for i := range 5 {
		c := makeCard(t, newKey(t), cardSpec{seq: 1})
		ok, err := putFrom(s, c, store.SourceAdvertise, attacker)
		switch {
		case i < 2 && (err != nil || !ok):
			t.Fatalf("card %d within the share: stored %v err %v", i, ok, err)
		case i >= 2 && !errors.Is(err, store.ErrFull):
			t.Fatalf("card %d past the share: err %v, want ErrFull", i, err)
		}
	}
	if m.refused[store.RefusedNetwork] != 3 {
		t.Fatalf("refused %v, want 3 %q", m.refused, store.RefusedNetwork)
	}
	if ok, err := putFrom(s, makeCard(t, newKey(t), cardSpec{seq: 1}), store.SourceAdvertise, "ip4:192.0.2.0/24"); err != nil || !ok {
		t.Fatalf("another network: stored %v err %v", ok, err)
	}
}

// TestMaxCardsAtOpen reopens a store under a lower bound: the weakest
// unpinned cards go, the pinned ones stay.
func TestMaxCardsAtOpen(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	s := openStore(t, dir, store.WithClock(clk.Now))
	own := makeCard(t, newKey(t), cardSpec{seq: 1})
	put(t, s, own, store.SourceSelf)
	var cards []*adp.Card
	for range 4 {
		clk.Advance(time.Second)
		c := makeCard(t, newKey(t), cardSpec{seq: 1})
		put(t, s, c, store.SourceGossip)
		cards = append(cards, c)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, store.WithClock(clk.Now), store.WithMaxCards(3))
	if s.Count() != 3 {
		t.Fatalf("count after reopening under a bound of 3: %d", s.Count())
	}
	// Equal tenure: the cards first seen last go first.
	if s.Held(own.ID) == nil || s.Held(cards[0].ID) == nil || s.Held(cards[1].ID) == nil || s.Held(cards[3].ID) != nil {
		t.Fatal("wrong cards evicted at open")
	}
}

// TestConcurrentFirstPutsKeepTheBound puts one new card from many
// goroutines at once, then fills the store: the bound must still count
// that card. Two orders lost it: a put that lost the race for the
// reservation believed it had reserved, and a put that did reserve but
// was ignored (another put of the same card stored it first) gave the
// place back; either way the store later took one card more than its
// bound.
func TestConcurrentFirstPutsKeepTheBound(t *testing.T) {
	const rounds, writers = 20, 8
	for r := range rounds {
		s := openMem(t, store.WithMaxCards(2))
		a := makeCard(t, newKey(t), cardSpec{seq: 1})
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := s.PutCard(context.Background(), a, store.SourceGossip, "test"); err != nil {
					t.Errorf("round %d: put of a: %v", r, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		put(t, s, makeCard(t, newKey(t), cardSpec{seq: 1}), store.SourceGossip)
		if _, err := putFrom(s, makeCard(t, newKey(t), cardSpec{seq: 1}), store.SourceGossip, ""); !errors.Is(err, store.ErrFull) {
			t.Fatalf("round %d: third agent into a store bounded at 2: err %v, want ErrFull (count %d)", r, err, s.Count())
		}
		if n := s.Count(); n != 2 {
			t.Fatalf("round %d: %d cards held, bound 2", r, n)
		}
	}
}
