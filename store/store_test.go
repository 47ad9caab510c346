package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

func seqOf(c *adp.Card) uint64 {
	if c.Seq == nil {
		return 0
	}
	return *c.Seq
}

// TestPutCardOrdering checks the ordering PutCard applies, step by step.
func TestPutCardOrdering(t *testing.T) {
	const t1, t2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"
	type step struct {
		spec       cardSpec
		src        store.Source
		wantStored bool
	}
	tests := []struct {
		name        string
		steps       []step
		wantLive    uint64 // seq of the live card, 0: none
		wantName    string // name of the live card when set
		wantRevoked bool
		wantSource  store.Source
	}{
		{"first card stored", []step{{cardSpec{seq: 1}, store.SourceGossip, true}}, 1, "", false, store.SourceGossip},
		{"newer seq replaces", []step{
			{cardSpec{seq: 1}, store.SourceGossip, true},
			{cardSpec{seq: 2}, store.SourceGossip, true},
		}, 2, "", false, store.SourceGossip},
		{"older seq ignored", []step{
			{cardSpec{seq: 2}, store.SourceGossip, true},
			{cardSpec{seq: 1}, store.SourceGossip, false},
		}, 2, "", false, store.SourceGossip},
		{"newer card from any source replaces", []step{
			{cardSpec{seq: 1}, store.SourceGossip, true},
			{cardSpec{seq: 2}, store.SourceDHT, true},
		}, 2, "", false, store.SourceDHT},
		{"absent seq below any seq", []step{
			{cardSpec{seq: 1}, store.SourceGossip, true},
			{cardSpec{}, store.SourceGossip, false},
		}, 1, "", false, store.SourceGossip},
		{"unsigned never replaces signed of equal seq", []step{
			{cardSpec{seq: 2}, store.SourceGossip, true},
			{cardSpec{seq: 2, unsigned: true, name: "forger"}, store.SourceImport, false},
		}, 2, "translator", false, store.SourceGossip},
		{"signed replaces unsigned of equal seq", []step{
			{cardSpec{seq: 2, unsigned: true, name: "draft"}, store.SourceImport, true},
			{cardSpec{seq: 2}, store.SourceGossip, true},
		}, 2, "translator", false, store.SourceGossip},
		{"later updated_at replaces at equal seq", []step{
			{cardSpec{seq: 2, updatedAt: t1}, store.SourceGossip, true},
			{cardSpec{seq: 2, updatedAt: t2, name: "later"}, store.SourceGossip, true},
		}, 2, "later", false, store.SourceGossip},
		{"earlier updated_at ignored at equal seq", []step{
			{cardSpec{seq: 2, updatedAt: t2}, store.SourceGossip, true},
			{cardSpec{seq: 2, updatedAt: t1, name: "earlier"}, store.SourceGossip, false},
		}, 2, "translator", false, store.SourceGossip},
		{"full tie keeps the first", []step{
			{cardSpec{seq: 2, name: "first"}, store.SourceGossip, true},
			{cardSpec{seq: 2, name: "second"}, store.SourceGossip, false},
		}, 2, "first", false, store.SourceGossip},
		{"revocation removes the live card", []step{
			{cardSpec{seq: 2}, store.SourceGossip, true},
			{cardSpec{seq: 3, revoke: true}, store.SourceGossip, true},
		}, 0, "", true, ""},
		{"tombstone blocks an older card", []step{
			{cardSpec{seq: 2}, store.SourceGossip, true},
			{cardSpec{seq: 3, revoke: true}, store.SourceGossip, true},
			{cardSpec{seq: 2}, store.SourceDHT, false},
		}, 0, "", true, ""},
		{"tombstone without a live card blocks older cards", []step{
			{cardSpec{seq: 5, revoke: true}, store.SourceGossip, true},
			{cardSpec{seq: 4}, store.SourceAdvertise, false},
		}, 0, "", true, ""},
		{"older revocation ignored", []step{
			{cardSpec{seq: 3}, store.SourceGossip, true},
			{cardSpec{seq: 2, revoke: true}, store.SourceGossip, false},
		}, 3, "", false, store.SourceGossip},
		{"newer card after revocation revives", []step{
			{cardSpec{seq: 3, revoke: true}, store.SourceGossip, true},
			{cardSpec{seq: 4}, store.SourceGossip, true},
		}, 4, "", false, store.SourceGossip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := openMem(t)
			sk := newKey(t)
			var id string
			for i, st := range tt.steps {
				c := makeCard(t, sk, st.spec)
				id = c.ID
				if got := put(t, s, c, st.src); got != st.wantStored {
					t.Fatalf("step %d: stored = %v, want %v", i, got, st.wantStored)
				}
			}
			rec, err := s.Card(ctx, id)
			if tt.wantLive == 0 {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("Card: err = %v, want ErrNotFound", err)
				}
				if got := errors.Is(err, store.ErrRevoked); got != tt.wantRevoked {
					t.Fatalf("Card: revoked = %v (%v), want %v", got, err, tt.wantRevoked)
				}
				if s.Count() != 0 {
					t.Fatalf("Count = %d, want 0", s.Count())
				}
				return
			}
			if err != nil {
				t.Fatalf("Card: %v", err)
			}
			if got := seqOf(rec.Card); got != tt.wantLive {
				t.Fatalf("live seq = %d, want %d", got, tt.wantLive)
			}
			if tt.wantName != "" && rec.Card.Name != tt.wantName {
				t.Fatalf("live name = %q, want %q", rec.Card.Name, tt.wantName)
			}
			if rec.Source != tt.wantSource {
				t.Fatalf("source = %q, want %q", rec.Source, tt.wantSource)
			}
			if s.Count() != 1 {
				t.Fatalf("Count = %d, want 1", s.Count())
			}
			if h := s.Held(id); h == nil || seqOf(h) != tt.wantLive {
				t.Fatalf("Held = %v, want seq %d", h, tt.wantLive)
			}
		})
	}
}

func TestCardRoundTrip(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openStore(t, "", store.WithClock(clk.Now), store.WithDefaultTTL(10*time.Minute))
	sk := newKey(t)
	c := makeCard(t, sk, cardSpec{seq: 7})
	if _, err := s.PutCard(ctx, c, store.SourceAdvertise, "12D3KooWorigin"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Card(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Card.Raw()) != string(c.Raw()) {
		t.Fatalf("raw bytes differ:\n got %s\nwant %s", rec.Card.Raw(), c.Raw())
	}
	if err := rec.Card.Verify(); err != nil {
		t.Fatalf("stored card no longer verifies: %v", err)
	}
	if rec.AgentID != c.ID || rec.Source != store.SourceAdvertise || rec.Origin != "12D3KooWorigin" {
		t.Fatalf("record = %+v", rec)
	}
	if !rec.ReceivedAt.Equal(clk.Now()) || !rec.ExpiresAt.Equal(clk.Now().Add(10*time.Minute)) {
		t.Fatalf("received %v expires %v, want %v and +10m", rec.ReceivedAt, rec.ExpiresAt, clk.Now())
	}
	// The base58 peer ID form names the same agent.
	p, err := c.PeerID()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Card(ctx, "agent://"+p.String()); err != nil {
		t.Fatalf("Card by base58 id: %v", err)
	}
	if _, err := s.Card(ctx, adp.AgentID(p)+"x"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Card by bad id: err = %v, want ErrInvalid", err)
	}
	if _, err := s.Card(ctx, adp.AgentID(newPeer(t))); !errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrRevoked) {
		t.Fatalf("Card of unknown agent: err = %v, want ErrNotFound only", err)
	}
}

func TestPutCardRejects(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	c := makeCard(t, newKey(t), cardSpec{seq: 1})
	cases := []struct {
		name   string
		card   *adp.Card
		src    store.Source
		origin string
		want   error
	}{
		{"nil card", nil, store.SourceGossip, "", store.ErrInvalid},
		{"unknown source", c, store.Source("carrier-pigeon"), "", store.ErrInvalid},
		{"empty source", c, "", "", store.ErrInvalid},
		{"oversized origin", c, store.SourceGossip, string(make([]byte, store.MaxOriginLen+1)), store.ErrInvalid},
		{"bad id", &adp.Card{ID: "agent://nope", Name: "x"}, store.SourceGossip, "", store.ErrInvalid},
		{"too large", &adp.Card{ID: c.ID, Name: "x", Description: strings.Repeat("d", adp.MaxCardSize)}, store.SourceGossip, "", store.ErrTooLarge},
		{"too large (adp error)", &adp.Card{ID: c.ID, Name: "x", Description: strings.Repeat("d", adp.MaxCardSize)}, store.SourceGossip, "", adp.ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.PutCard(ctx, tc.card, tc.src, tc.origin); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if s.Count() != 0 {
		t.Fatalf("Count = %d after rejected puts", s.Count())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.PutCard(cctx, c, store.SourceGossip, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled ctx: err = %v", err)
	}
}

// TestConcurrentPuts races puts of many versions of a few agents; each agent
// must end with its highest seq, whatever the interleaving.
func TestConcurrentPuts(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, "")
	const agents, versions = 4, 12
	cards := make([][]*adp.Card, agents)
	for a := range cards {
		sk := newKey(t)
		for v := 1; v <= versions; v++ {
			cards[a] = append(cards[a], makeCard(t, sk, cardSpec{seq: uint64(v)}))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, agents*versions)
	for a := range cards {
		// Highest seq first for half the agents, so the order of arrival
		// and the order of seq disagree.
		for v := range cards[a] {
			c := cards[a][v]
			if a%2 == 0 {
				c = cards[a][versions-1-v]
			}
			wg.Go(func() {
				if _, err := s.PutCard(ctx, c, store.SourceGossip, ""); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for a := range cards {
		rec, err := s.Card(ctx, cards[a][0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := seqOf(rec.Card); got != versions {
			t.Fatalf("agent %d: seq %d, want %d", a, got, versions)
		}
	}
	if s.Count() != agents {
		t.Fatalf("Count = %d, want %d", s.Count(), agents)
	}
}

func TestCardsIteratesAll(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	want := map[string]bool{}
	// More than one read batch (256).
	const n = 300
	for range n {
		c := makeCard(t, newKey(t), cardSpec{seq: 1})
		put(t, s, c, store.SourceGossip)
		want[c.ID] = true
	}
	revoked := makeCard(t, newKey(t), cardSpec{seq: 1, revoke: true})
	put(t, s, revoked, store.SourceGossip)
	got := map[string]bool{}
	err := s.Cards(ctx, func(r *store.Record) bool {
		if got[r.AgentID] {
			t.Errorf("%s seen twice", r.AgentID)
		}
		got[r.AgentID] = true
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || s.Count() != n {
		t.Fatalf("Cards saw %d, Count %d, want %d", len(got), s.Count(), n)
	}
	for id := range want {
		if !got[id] {
			t.Fatalf("%s missing", id)
		}
	}
	// Early stop.
	seen := 0
	if err := s.Cards(ctx, func(*store.Record) bool { seen++; return seen < 3 }); err != nil || seen != 3 {
		t.Fatalf("early stop: seen %d, err %v", seen, err)
	}
}

func TestClosedStore(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(t.TempDir(), store.WithSmallMemory())
	if err != nil {
		t.Fatal(err)
	}
	c := makeCard(t, newKey(t), cardSpec{seq: 1})
	ch, cancel := s.Subscribe(1)
	defer cancel()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok := <-ch; ok {
		t.Fatal("subscription channel still open after Close")
	}
	if _, err := s.PutCard(ctx, c, store.SourceGossip, ""); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("PutCard after Close: %v", err)
	}
	if _, err := s.Card(ctx, c.ID); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Card after Close: %v", err)
	}
	if err := s.RecordCall(ctx, c.ID, true, time.Millisecond); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("RecordCall after Close: %v", err)
	}
	if err := s.Cards(ctx, func(*store.Record) bool { return true }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Cards after Close: %v", err)
	}
	if _, err := s.Sweep(ctx); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Sweep after Close: %v", err)
	}
	if s.Held(c.ID) != nil {
		t.Fatal("Held after Close returned a card")
	}
	late, lateCancel := s.Subscribe(1)
	if _, ok := <-late; ok {
		t.Fatal("Subscribe after Close: channel open")
	}
	lateCancel()
}

func TestOpenOptions(t *testing.T) {
	bad := []struct {
		dir  string
		opts []store.Option
	}{
		{"", nil},
		{t.TempDir(), []store.Option{store.WithInMemory()}},
		{t.TempDir(), []store.Option{store.WithDefaultTTL(0)}},
		{t.TempDir(), []store.Option{store.WithGrace(-1)}},
		{t.TempDir(), []store.Option{store.WithTombstoneTTL(-1)}},
		{t.TempDir(), []store.Option{store.WithSweepInterval(-1)}},
		{t.TempDir(), []store.Option{store.WithClock(nil)}},
		{t.TempDir(), []store.Option{store.WithMetrics(nil)}},
	}
	for i, b := range bad {
		if s, err := store.Open(b.dir, b.opts...); !errors.Is(err, store.ErrInvalid) {
			if s != nil {
				s.Close()
			}
			t.Errorf("case %d: err = %v, want ErrInvalid", i, err)
		}
	}
	s, err := store.Open("", store.WithInMemory())
	if err != nil {
		t.Fatalf("in-memory: %v", err)
	}
	put(t, s, makeCard(t, newKey(t), cardSpec{seq: 1}), store.SourceSelf)
	if s.Count() != 1 {
		t.Fatalf("Count = %d", s.Count())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHoldsExactly: true only for the held card's own bytes, the live
// card's or the revocation's, and for no other agent or version.
func TestHoldsExactly(t *testing.T) {
	s := openMem(t)
	sk := newKey(t)
	v1 := makeCard(t, sk, cardSpec{seq: 1})
	if s.HoldsExactly(v1.ID, v1.Raw()) {
		t.Fatal("an empty store holds the card")
	}
	put(t, s, v1, store.SourceGossip)
	if !s.HoldsExactly(v1.ID, v1.Raw()) {
		t.Fatal("the stored card's bytes are not recognised")
	}
	v2 := makeCard(t, sk, cardSpec{seq: 2})
	if s.HoldsExactly(v2.ID, v2.Raw()) {
		t.Fatal("a newer version counts as held")
	}
	other := makeCard(t, newKey(t), cardSpec{seq: 1})
	if s.HoldsExactly(other.ID, v1.Raw()) || s.HoldsExactly("not an id", v1.Raw()) {
		t.Fatal("the bytes count as held for another agent")
	}
	rev := makeCard(t, sk, cardSpec{seq: 3, revoke: true})
	put(t, s, rev, store.SourceGossip)
	if !s.HoldsExactly(rev.ID, rev.Raw()) || s.HoldsExactly(v1.ID, v1.Raw()) {
		t.Fatal("after the revocation, its bytes and only they are held")
	}
}

// TestHolds: Holds agrees with Held, for no card, a live card and a
// revocation.
func TestHolds(t *testing.T) {
	s := openMem(t)
	sk := newKey(t)
	v1 := makeCard(t, sk, cardSpec{seq: 1})
	check := func(when string) {
		t.Helper()
		if got, want := s.Holds(v1.ID), s.Held(v1.ID) != nil; got != want {
			t.Fatalf("%s: Holds %v, Held says %v", when, got, want)
		}
	}
	check("empty")
	if s.Holds(v1.ID) || s.Holds("not an id") {
		t.Fatal("an empty store holds a card")
	}
	put(t, s, v1, store.SourceGossip)
	check("live card")
	put(t, s, makeCard(t, sk, cardSpec{seq: 2, revoke: true}), store.SourceGossip)
	check("revocation")
	if !s.Holds(v1.ID) {
		t.Fatal("the revocation is not held")
	}
}
