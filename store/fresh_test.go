package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/store"
)

func TestFreshnessAndSweep(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openMem(t, store.WithClock(clk.Now), store.WithDefaultTTL(time.Hour), store.WithGrace(10*time.Minute))
	ch, cancel := s.Subscribe(16)
	defer cancel()

	short := makeCard(t, newKey(t), cardSpec{seq: 1, ttl: 60}) // metadata.ttl 60 s
	long := makeCard(t, newKey(t), cardSpec{seq: 1})           // default TTL 1 h
	put(t, s, short, store.SourceGossip)
	put(t, s, long, store.SourceDHT)
	next(t, ch)
	next(t, ch)

	rec, err := s.Card(ctx, short.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.ExpiresAt.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("ExpiresAt = %v, want now+60s", rec.ExpiresAt)
	}
	if rec.Stale(clk.Now()) {
		t.Fatal("fresh card reported stale")
	}

	clk.Advance(2 * time.Minute)
	rec, err = s.Card(ctx, short.ID)
	if err != nil {
		t.Fatalf("stale card not fetchable: %v", err)
	}
	if !rec.Stale(clk.Now()) {
		t.Fatal("card past its TTL not stale")
	}
	if n, err := s.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("Sweep within grace removed %d (%v)", n, err)
	}

	// The same card again refreshes it.
	if put(t, s, short, store.SourceGossip) {
		t.Fatal("same card counted as stored")
	}
	if c := next(t, ch); c.Kind != store.Refreshed || !c.Record.ReceivedAt.Equal(clk.Now()) {
		t.Fatalf("refresh change = %v received %v", c.Kind, c.Record.ReceivedAt)
	}
	rec, _ = s.Card(ctx, short.ID)
	if rec.Stale(clk.Now()) || rec.Source != store.SourceGossip {
		t.Fatalf("refreshed record = %+v", rec)
	}

	// Past TTL and grace: removed with a Removed change.
	clk.Advance(time.Minute + 10*time.Minute)
	n, err := s.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Sweep removed %d (%v), want 1", n, err)
	}
	if c := next(t, ch); c.Kind != store.Removed || c.Reason != store.ReasonExpired || c.AgentID != short.ID {
		t.Fatalf("change = %v %q %s", c.Kind, c.Reason, c.AgentID)
	}
	if _, err := s.Card(ctx, short.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("swept card: err = %v", err)
	}
	if _, err := s.Card(ctx, long.ID); err != nil {
		t.Fatalf("long-lived card gone: %v", err)
	}
	if s.Count() != 1 {
		t.Fatalf("Count = %d, want 1", s.Count())
	}
	if got, want := s.CardBytes(), int64(len(long.Raw())); got != want {
		t.Fatalf("CardBytes = %d, want %d (the one held card's encoding)", got, want)
	}
	// A swept agent may come back with any card.
	if !put(t, s, short, store.SourceGossip) {
		t.Fatal("card not stored after its record was swept")
	}
}

func TestTombstoneLifetime(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openMem(t, store.WithClock(clk.Now), store.WithTombstoneTTL(time.Hour), store.WithGrace(0))
	sk := newKey(t)
	old := makeCard(t, sk, cardSpec{seq: 1, ttl: 30})
	put(t, s, old, store.SourceGossip)
	put(t, s, makeCard(t, sk, cardSpec{seq: 2, revoke: true, ttl: 30}), store.SourceGossip)
	tomb, err := s.Tombstone(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Kept for the tombstone TTL, not the revocation's 30 s.
	if !tomb.ExpiresAt.Equal(clk.Now().Add(time.Hour)) {
		t.Fatalf("tombstone expires %v, want now+1h", tomb.ExpiresAt)
	}
	clk.Advance(30 * time.Minute)
	if n, _ := s.Sweep(ctx); n != 0 {
		t.Fatalf("swept %d before the tombstone expired", n)
	}
	if put(t, s, old, store.SourceGossip) {
		t.Fatal("older card passed a live tombstone")
	}
	clk.Advance(31 * time.Minute)
	if n, err := s.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("swept %d (%v), want the tombstone", n, err)
	}
	if _, err := s.Tombstone(ctx, old.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("tombstone after sweep: %v", err)
	}
}

func TestNoEvictionKeepsEverything(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openMem(t, store.WithClock(clk.Now), store.WithNoEviction(), store.WithGrace(0))
	c := makeCard(t, newKey(t), cardSpec{seq: 1, ttl: 1})
	put(t, s, c, store.SourceGossip)
	clk.Advance(365 * 24 * time.Hour)
	if n, err := s.Sweep(ctx); n != 0 || err != nil {
		t.Fatalf("Sweep removed %d (%v) in no-eviction mode", n, err)
	}
	rec, err := s.Card(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Stale(clk.Now()) {
		t.Fatal("old card not marked stale in no-eviction mode")
	}
}

// TestBackgroundSweeper runs the real sweeper loop on a short interval.
func TestBackgroundSweeper(t *testing.T) {
	clk := newClock()
	s, err := store.Open("", store.WithInMemory(), store.WithClock(clk.Now), store.WithGrace(0),
		store.WithSweepInterval(5*time.Millisecond), store.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, makeCard(t, newKey(t), cardSpec{seq: 1, ttl: 10}), store.SourceGossip)
	clk.Advance(11 * time.Second)
	polltest.For(t, 10*time.Second, "the sweeper to remove the expired card", func() bool { return s.Count() == 0 })
	if b := s.CardBytes(); b != 0 {
		t.Fatalf("CardBytes = %d with no card held", b)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHugeTTLCapped: a metadata.ttl of 2^53-1 seconds is capped at MaxTTL
// instead of overflowing the stored expiry.
func TestHugeTTLCapped(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	dir := t.TempDir()
	s := openStore(t, dir, store.WithClock(clk.Now))
	c := makeCard(t, newKey(t), cardSpec{seq: 1, ttl: adp.MaxSeq})
	put(t, s, c, store.SourceGossip)
	rec, err := s.Card(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := clk.Now().Add(store.MaxTTL); !rec.ExpiresAt.Equal(want) {
		t.Fatalf("ExpiresAt = %v, want %v", rec.ExpiresAt, want)
	}
	clk.Advance(100 * 365 * 24 * time.Hour)
	if !rec.Stale(clk.Now()) {
		t.Fatal("not stale a century later")
	}
	if n, err := s.Sweep(ctx); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
}

// TestSweepRacesPuts: sweeps running while newer cards arrive never remove
// a fresh card, and every agent ends with its newest card.
func TestSweepRacesPuts(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openMem(t, store.WithClock(clk.Now), store.WithGrace(0))
	const agents = 6
	keys := make([]crypto.PrivKey, agents)
	for i := range keys {
		keys[i] = newKey(t)
		put(t, s, makeCard(t, keys[i], cardSpec{seq: 1, ttl: 1}), store.SourceGossip)
	}
	clk.Advance(2 * time.Second) // every seq 1 card has expired
	fresh := make([]*adp.Card, agents)
	for i := range fresh {
		fresh[i] = makeCard(t, keys[i], cardSpec{seq: 2, ttl: 3600})
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 20 {
			if _, err := s.Sweep(ctx); err != nil {
				t.Error(err)
			}
		}
	})
	for _, c := range fresh {
		wg.Go(func() {
			if _, err := s.PutCard(ctx, c, store.SourceGossip, ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range fresh {
		rec, err := s.Card(ctx, c.ID)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if seqOf(rec.Card) != 2 {
			t.Fatalf("%s: seq %d", c.ID, seqOf(rec.Card))
		}
	}
	if s.Count() != agents {
		t.Fatalf("Count = %d, want %d", s.Count(), agents)
	}
}
