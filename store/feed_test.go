package store_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/store"
)

// next receives one change or fails after a deadline.
func next(t *testing.T, ch <-chan store.Change) store.Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatal("feed closed")
		}
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change within 10s")
	}
	return store.Change{}
}

func TestSubscribeDeliversChanges(t *testing.T) {
	s := openMem(t)
	ch, cancel := s.Subscribe(8)
	defer cancel()
	sk := newKey(t)
	c1 := makeCard(t, sk, cardSpec{seq: 1})
	put(t, s, c1, store.SourceGossip)
	if c := next(t, ch); c.Kind != store.Upserted || c.AgentID != c1.ID || seqOf(c.Record.Card) != 1 {
		t.Fatalf("change = %v %s seq %d", c.Kind, c.AgentID, seqOf(c.Record.Card))
	}
	put(t, s, makeCard(t, sk, cardSpec{seq: 1}), store.SourceGossip) // equal: no change (refresh needs time to pass)
	put(t, s, makeCard(t, sk, cardSpec{seq: 2}), store.SourceGossip)
	if c := next(t, ch); c.Kind != store.Upserted || seqOf(c.Record.Card) != 2 {
		t.Fatalf("change = %v seq %d, want upserted seq 2", c.Kind, seqOf(c.Record.Card))
	}
	put(t, s, makeCard(t, sk, cardSpec{seq: 3, revoke: true}), store.SourceGossip)
	if c := next(t, ch); c.Kind != store.Removed || c.Reason != store.ReasonRevoked || c.AgentID != c1.ID {
		t.Fatalf("change = %v %q, want removed revoked", c.Kind, c.Reason)
	}
	cancel()
	cancel() // idempotent
	for range ch {
		// drain until closed
	}
}

// TestSlowSubscriberCoalesces: writers never wait for a subscriber that
// does not read; once it reads, it gets the latest state of every agent.
func TestSlowSubscriberCoalesces(t *testing.T) {
	s := openMem(t)
	ch, cancel := s.Subscribe(0)
	defer cancel()
	const agents, versions = 5, 20
	ids := make([]string, agents)
	for a := range agents {
		sk := newKey(t)
		for v := 1; v <= versions; v++ {
			c := makeCard(t, sk, cardSpec{seq: uint64(v)})
			ids[a] = c.ID
			put(t, s, c, store.SourceGossip) // must not block on the unread feed
		}
	}
	// The last version of every agent arrives; earlier ones may be skipped.
	latest := map[string]uint64{}
	for len(latest) < agents || !allAt(latest, versions) {
		c := next(t, ch)
		if c.Kind != store.Upserted {
			t.Fatalf("unexpected %v", c.Kind)
		}
		if got := seqOf(c.Record.Card); got < latest[c.AgentID] {
			t.Fatalf("%s went back from seq %d to %d", c.AgentID, latest[c.AgentID], got)
		}
		latest[c.AgentID] = seqOf(c.Record.Card)
	}
	for _, id := range ids {
		if latest[id] != versions {
			t.Fatalf("%s ended at seq %d", id, latest[id])
		}
	}
}

func allAt(m map[string]uint64, v uint64) bool {
	for _, s := range m {
		if s != v {
			return false
		}
	}
	return true
}

// TestSubscribeReplayMirror mirrors the store through Subscribe then
// Cards while a writer runs, and checks the mirror converges on the store.
func TestSubscribeReplayMirror(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	sks := make([]crypto.PrivKey, 6)
	for i := range sks {
		sks[i] = newKey(t)
	}
	for _, sk := range sks[:3] { // some cards exist before the subscriber
		put(t, s, makeCard(t, sk, cardSpec{seq: 1}), store.SourceGossip)
	}
	ch, cancel := s.Subscribe(4)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, sk := range sks {
			if _, err := s.PutCard(ctx, makeCard(t, sk, cardSpec{seq: 2}), store.SourceGossip, ""); err != nil {
				t.Error(err)
			}
			if i%2 == 0 {
				if _, err := s.PutCard(ctx, makeCard(t, sk, cardSpec{seq: 3, revoke: true}), store.SourceGossip, ""); err != nil {
					t.Error(err)
				}
			}
		}
	}()
	mirror := map[string]uint64{}
	if err := s.Cards(ctx, func(r *store.Record) bool {
		mirror[r.AgentID] = seqOf(r.Card)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	<-done
	want := map[string]uint64{}
	if err := s.Cards(ctx, func(r *store.Record) bool {
		want[r.AgentID] = seqOf(r.Card)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 {
		t.Fatalf("store holds %d live cards, want 3", len(want))
	}
	for !maps.Equal(mirror, want) {
		c := next(t, ch)
		switch c.Kind {
		case store.Upserted:
			mirror[c.AgentID] = seqOf(c.Record.Card)
		case store.Removed:
			delete(mirror, c.AgentID)
		}
	}
}
