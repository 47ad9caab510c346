package cardsync_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/store"
)

type agent struct {
	sk crypto.PrivKey
	id peer.ID
}

func newAgent(t *testing.T) agent {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return agent{sk, p}
}

func (a agent) card(t *testing.T, seq uint64) *adp.Card {
	t.Helper()
	c := &adp.Card{Name: "alpha", Seq: &seq, Metadata: &adp.Metadata{UpdatedAt: time.Unix(int64(seq), 0).UTC().Format(time.RFC3339)}}
	if err := c.Sign(a.sk); err != nil {
		t.Fatal(err)
	}
	return c
}

// newIntake returns an intake over an in-memory store holding cards.
func newIntake(t *testing.T, self agent, cards ...*adp.Card) (*intake.Intake, *store.Store) {
	t.Helper()
	s, err := store.Open("", store.WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, c := range cards {
		if _, err := s.PutCard(context.Background(), c, store.SourceGossip, "test"); err != nil {
			t.Fatal(err)
		}
	}
	return intake.New(s, adp.AgentID(self.id)), s
}

func list(cards ...*adp.Card) []cardsync.Entry {
	out := make([]cardsync.Entry, len(cards))
	for i, c := range cards {
		out[i] = cardsync.Entry{ID: c.ID, Card: c.Raw()}
	}
	return out
}

// fixed answers every fetch with l.
func fixed(l []cardsync.Entry) cardsync.Fetch {
	return func(context.Context, peer.ID) ([]cardsync.Entry, error) { return l, nil }
}

func newSyncer(t *testing.T, f cardsync.Fetch, in cardsync.Intake, opts ...cardsync.Option) *cardsync.Syncer {
	t.Helper()
	s, err := cardsync.New(f, in, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func seqHeld(s *store.Store, id string) uint64 {
	c := s.Held(id)
	if c == nil || c.Seq == nil {
		return 0
	}
	return *c.Seq
}

// TestSyncNewerOnly: of a peer's list, only the cards newer than the held
// ones (or not held at all) are verified and stored; an older one is
// neither verified nor stored.
func TestSyncNewerOnly(t *testing.T) {
	self, a, b, c := newAgent(t), newAgent(t), newAgent(t), newAgent(t)
	in, st := newIntake(t, self, a.card(t, 2), b.card(t, 1))
	s := newSyncer(t, fixed(list(a.card(t, 1), b.card(t, 3), c.card(t, 1))), in)
	if err := s.Sync(context.Background(), b.id); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		who  agent
		want uint64
	}{{a, 2}, {b, 3}, {c, 1}} {
		if got := seqHeld(st, adp.AgentID(w.who.id)); got != w.want {
			t.Errorf("%s held at seq %d, want %d", w.who.id, got, w.want)
		}
	}
	got := s.Stats()
	if got.Newer != 2 || got.Stored != 2 || got.Skipped != 1 || got.Refused != 0 {
		t.Errorf("stats %+v, want 2 newer, 2 stored, 1 skipped", got)
	}
	if v := in.Stats().Verifications; v != 2 {
		t.Errorf("%d signatures verified, want 2 (the older card is not verified)", v)
	}
}

// heldCounter is an intake that counts the held cards it decodes.
type heldCounter struct {
	*intake.Intake
	held atomic.Int32
}

func (h *heldCounter) Held(id string) *adp.Card {
	h.held.Add(1)
	return h.Intake.Held(id)
}

// TestSyncSkipsHeldBytes: an entry with the held card's very bytes is
// skipped without decoding the held card; an entry whose id hint names
// another agent is still parsed by its own bytes, and stored when newer.
func TestSyncSkipsHeldBytes(t *testing.T) {
	self, a, b := newAgent(t), newAgent(t), newAgent(t)
	held := a.card(t, 2)
	base, st := newIntake(t, self, held, b.card(t, 1))
	in := &heldCounter{Intake: base}
	newerB := b.card(t, 4)
	l := []cardsync.Entry{
		{ID: held.ID, Card: held.Raw()},
		{ID: held.ID, Card: newerB.Raw()}, // a wrong hint: the bytes are b's
	}
	s := newSyncer(t, fixed(l), in)
	if err := s.Sync(context.Background(), a.id); err != nil {
		t.Fatal(err)
	}
	if got := seqHeld(st, adp.AgentID(b.id)); got != 4 {
		t.Errorf("b held at seq %d, want 4", got)
	}
	if got := s.Stats(); got.Skipped != 1 || got.Stored != 1 {
		t.Errorf("stats %+v, want 1 skipped, 1 stored", got)
	}
	if n := in.held.Load(); n != 1 {
		t.Errorf("%d held cards decoded, want 1 (b's only)", n)
	}
}

// TestSyncDropsUnverified: a newer card whose signature does not verify
// is dropped by the intake and the held card stays.
func TestSyncDropsUnverified(t *testing.T) {
	self, a := newAgent(t), newAgent(t)
	in, st := newIntake(t, self, a.card(t, 1))
	forged := bytes.Replace(a.card(t, 5).Raw(), []byte("alpha"), []byte("alphb"), 1)
	s := newSyncer(t, fixed([]cardsync.Entry{{ID: adp.AgentID(a.id), Card: forged}}), in)
	if err := s.Sync(context.Background(), a.id); err != nil {
		t.Fatal(err)
	}
	if got := seqHeld(st, adp.AgentID(a.id)); got != 1 {
		t.Errorf("held seq %d after a forged seq 5, want 1", got)
	}
	if got := s.Stats(); got.Newer != 1 || got.Refused != 1 || got.Stored != 0 {
		t.Errorf("stats %+v, want 1 newer, 1 refused, 0 stored", got)
	}
}

// TestSyncFetchError: a failed fetch is returned and counted.
func TestSyncFetchError(t *testing.T) {
	self, a := newAgent(t), newAgent(t)
	in, _ := newIntake(t, self)
	boom := errors.New("boom")
	s := newSyncer(t, func(context.Context, peer.ID) ([]cardsync.Entry, error) { return nil, boom }, in)
	if err := s.Sync(context.Background(), a.id); !errors.Is(err, boom) {
		t.Fatalf("Sync = %v, want %v", err, boom)
	}
	if got := s.Stats().Failed; got != 1 {
		t.Errorf("failed %d, want 1", got)
	}
}

// recorder is a Fetch that records when each peer was asked, and can
// hold the fetches until released.
type recorder struct {
	mu      sync.Mutex
	at      map[peer.ID][]time.Time
	hold    chan struct{} // nil: answer at once
	cur     atomic.Int32
	maxSeen atomic.Int32
}

func newRecorder(hold bool) *recorder {
	r := &recorder{at: map[peer.ID][]time.Time{}}
	if hold {
		r.hold = make(chan struct{})
	}
	return r
}

func (r *recorder) fetch(ctx context.Context, p peer.ID) ([]cardsync.Entry, error) {
	n := r.cur.Add(1)
	defer r.cur.Add(-1)
	for {
		m := r.maxSeen.Load()
		if n <= m || r.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	r.mu.Lock()
	r.at[p] = append(r.at[p], time.Now())
	r.mu.Unlock()
	if r.hold != nil {
		select {
		case <-r.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, nil
}

func (r *recorder) times(p peer.ID) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.at[p]...)
}

func (r *recorder) count(p peer.ID, n int) func() error {
	return func() error {
		if got := len(r.times(p)); got != n {
			return fmt.Errorf("%s fetched %d times, want %d", p, got, n)
		}
		return nil
	}
}

// TestConnectedRateLimit: connections to one peer within the interval
// give one sync at once and one more at the end of the interval, not
// one each; another peer is not held up by it.
func TestConnectedRateLimit(t *testing.T) {
	self, p, q := newAgent(t), newAgent(t), newAgent(t)
	in, _ := newIntake(t, self)
	r := newRecorder(false)
	const interval = 2 * time.Second
	s := newSyncer(t, r.fetch, in, cardsync.Interval(interval))

	// The syncer stamps a sync when it starts, after Connected is called
	// and before the fetch runs: the interval is measured from before
	// that call, which no stamp precedes, to the second fetch.
	first := time.Now()
	s.Connected(p.id)
	polltest.Until(t, 5*time.Second, r.count(p.id, 1))
	s.Connected(p.id) // within the interval: deferred
	s.Connected(p.id) // already waiting: nothing more
	s.Connected(q.id)
	polltest.Until(t, 5*time.Second, r.count(q.id, 1))
	if got := len(r.times(p.id)); got != 1 {
		t.Fatalf("p fetched %d times before its interval ended, want 1", got)
	}
	polltest.Until(t, 10*time.Second, r.count(p.id, 2))
	at := r.times(p.id)
	if gap := at[1].Sub(first); gap < interval {
		t.Errorf("second sync with p %v after the first was asked for, want at least %v", gap, interval)
	}
	if got := s.Stats(); got.Deferred != 1 || got.Syncs != 3 {
		t.Errorf("stats %+v, want 1 deferred and 3 syncs", got)
	}
}

// TestConnectedBounds: at most MaxInFlight syncs run at once, and a
// connection beyond MaxPending waiting peers is dropped.
func TestConnectedBounds(t *testing.T) {
	self := newAgent(t)
	in, _ := newIntake(t, self)
	r := newRecorder(true)
	s := newSyncer(t, r.fetch, in, cardsync.MaxInFlight(2), cardsync.MaxPending(3))
	var peers []peer.ID
	for range 6 {
		peers = append(peers, newAgent(t).id)
	}
	s.Connected(peers[0])
	s.Connected(peers[1])
	polltest.For(t, 5*time.Second, "two syncs running", func() bool { return r.cur.Load() == 2 })
	for _, p := range peers[2:] {
		s.Connected(p) // three wait, the fourth is dropped
	}
	if got := s.Stats().Dropped; got != 1 {
		t.Errorf("dropped %d, want 1", got)
	}
	close(r.hold)
	polltest.For(t, 5*time.Second, "five syncs", func() bool { return s.Stats().Syncs == 5 })
	if got := r.maxSeen.Load(); got != 2 {
		t.Errorf("%d syncs ran at once, want at most 2", got)
	}
}

// TestBehindRepublishes: a peer's list without the own card, or with an
// older one, has the own card published again; a list holding the
// current one does not.
func TestBehindRepublishes(t *testing.T) {
	self, p := newAgent(t), newAgent(t)
	own := self.card(t, 3)
	in, _ := newIntake(t, self)
	var published atomic.Int32
	opts := []cardsync.Option{
		cardsync.Republish(func() *adp.Card { return own }, func(_ context.Context, c *adp.Card) error {
			if c != own {
				t.Errorf("published %v, want the own card", c.ID)
			}
			published.Add(1)
			return nil
		}),
		cardsync.RepublishPace(0, time.Hour),
	}
	for _, tc := range []struct {
		name   string
		list   []cardsync.Entry
		behind uint64
	}{
		{"current", list(own), 0},
		{"newer", list(self.card(t, 4)), 0},
		{"older", list(self.card(t, 2)), 1},
		{"absent", list(p.card(t, 1)), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSyncer(t, fixed(tc.list), in, opts...)
			if err := s.Sync(context.Background(), p.id); err != nil {
				t.Fatal(err)
			}
			if got := s.Stats().Behind; got != tc.behind {
				t.Errorf("behind %d, want %d", got, tc.behind)
			}
			polltest.For(t, 5*time.Second, fmt.Sprintf("%d republications", tc.behind), func() bool { return s.Stats().Republished == tc.behind })
		})
	}
	if got := published.Load(); got != 2 {
		t.Errorf("published %d times, want 2 (one per syncer that found the peer behind)", got)
	}
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestBehindCoalesces: requests for a republication within its delay
// give one, and the next waits for the republish interval.
// republisher is a Syncer on a fake clock that republishes the own card
// (counted) after a second, at most once a minute, with a peer p to sync
// from and the recorder of its syncs.
type republisher struct {
	s         *cardsync.Syncer
	clk       *clock
	p         agent
	r         *recorder
	published atomic.Int32
}

func newRepublisher(t *testing.T) *republisher {
	self := newAgent(t)
	own := self.card(t, 1)
	in, _ := newIntake(t, self)
	rp := &republisher{clk: &clock{now: time.Unix(1_000_000, 0)}, p: newAgent(t), r: newRecorder(false)}
	rp.s = newSyncer(t, rp.r.fetch, in, cardsync.Clock(rp.clk.Now),
		cardsync.Republish(func() *adp.Card { return own }, func(context.Context, *adp.Card) error { rp.published.Add(1); return nil }),
		cardsync.RepublishPace(time.Second, time.Minute))
	return rp
}

func TestBehindCoalesces(t *testing.T) {
	rp := newRepublisher(t)
	s, clk, p, r, published := rp.s, rp.clk, rp.p, rp.r, &rp.published
	for range 5 {
		s.Behind()
	}
	clk.Advance(time.Second)
	s.Behind() // coalesced; wakes the loop, which finds the republication due
	polltest.For(t, 5*time.Second, "a republication", func() bool { return s.Stats().Republished == 1 })
	s.Behind()
	clk.Advance(30 * time.Second) // within the minute
	s.Connected(p.id)             // wakes the loop; the sync shows it ran
	polltest.Until(t, 5*time.Second, r.count(p.id, 1))
	if got := s.Stats().Republished; got != 1 {
		t.Errorf("republished %d times within the interval, want 1", got)
	}
	clk.Advance(31 * time.Second)
	s.Behind()
	polltest.For(t, 5*time.Second, "the second republication", func() bool { return s.Stats().Republished == 2 })
	if got := published.Load(); got != 2 {
		t.Errorf("publish called %d times, want 2", got)
	}
}

// TestPublishedDropsRepublication: a republication asked for before the
// own card was published by another path is dropped, and one asked for
// after waits the republish interval from that publication.
func TestPublishedDropsRepublication(t *testing.T) {
	rp := newRepublisher(t)
	s, clk, p, r := rp.s, rp.clk, rp.p, rp.r
	s.Behind()
	s.Published()
	clk.Advance(30 * time.Second)
	s.Behind()        // within the minute after the publication
	s.Connected(p.id) // wakes the loop; the sync shows it ran
	polltest.Until(t, 5*time.Second, r.count(p.id, 1))
	if got := s.Stats().Republished; got != 0 {
		t.Fatalf("republished %d times after the card was published, want 0", got)
	}
	clk.Advance(31 * time.Second)
	s.Behind()
	polltest.For(t, 5*time.Second, "a republication once the interval passed", func() bool { return s.Stats().Republished == 1 })
}

// TestRounds: anti-entropy rounds sync with the connected peers in turn,
// the least recently synced first.
func TestRounds(t *testing.T) {
	self, p, q := newAgent(t), newAgent(t), newAgent(t)
	in, _ := newIntake(t, self)
	var (
		mu    sync.Mutex
		order []peer.ID
	)
	fetch := func(_ context.Context, x peer.ID) ([]cardsync.Entry, error) {
		mu.Lock()
		order = append(order, x)
		mu.Unlock()
		return nil, nil
	}
	s := newSyncer(t, fetch, in, cardsync.Interval(10*time.Millisecond),
		cardsync.Rounds(100*time.Millisecond, func() []peer.ID { return []peer.ID{p.id, q.id} }))
	polltest.For(t, 10*time.Second, "four rounds", func() bool { return s.Stats().Syncs >= 4 })
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < 4; i++ {
		if order[i] == order[i-1] {
			t.Errorf("round %d synced %s again, want the other peer (order %v)", i, order[i], order[:4])
		}
	}
	if got := s.Stats().Rounds; got < 4 {
		t.Errorf("%d rounds counted, want at least 4", got)
	}
}

// TestConnectedRetries: a failed sync is tried again at the end of the
// interval, a bounded number of times.
func TestConnectedRetries(t *testing.T) {
	self, p := newAgent(t), newAgent(t)
	in, _ := newIntake(t, self)
	var calls atomic.Int32
	fail := func(context.Context, peer.ID) ([]cardsync.Entry, error) {
		calls.Add(1)
		return nil, errors.New("busy")
	}
	s := newSyncer(t, fail, in, cardsync.Interval(50*time.Millisecond), cardsync.IsConnected(func(peer.ID) bool { return true }))
	s.Connected(p.id)
	polltest.For(t, 10*time.Second, "four attempts", func() bool { return s.Stats().Failed == 4 })
	s.Connected(p.id) // a new connection starts afresh
	polltest.For(t, 10*time.Second, "eight attempts", func() bool { return s.Stats().Failed == 8 })
	if got := calls.Load(); got != 8 {
		t.Errorf("%d fetches, want 8 (1 + 3 retries, twice)", got)
	}
}
