package indexfeed_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/indexfeed"
	"github.com/adpnode/adpnode/node/liveness"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/store"
)

const wait = 10 * time.Second

// recIndex is the real discovery index, with the signals pushed to it
// recorded.
type recIndex struct {
	*discovery.Discovery
	mu     sync.Mutex
	pushes map[string][]scoring.Signals
}

func (r *recIndex) SetSignals(agentID string, s scoring.Signals) {
	r.mu.Lock()
	r.pushes[agentID] = append(r.pushes[agentID], s)
	r.mu.Unlock()
	r.Discovery.SetSignals(agentID, s)
}

// last returns the last signals pushed for agentID and how many pushes
// there were.
func (r *recIndex) last(agentID string) (scoring.Signals, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pushes[agentID]
	if len(p) == 0 {
		return scoring.Signals{}, 0
	}
	return p[len(p)-1], len(p)
}

// breakers reports the peers in open as open.
type breakers struct {
	mu   sync.Mutex
	open map[peer.ID]bool
}

func (b *breakers) BreakerState(p peer.ID) aitp.BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open[p] {
		return aitp.BreakerOpen
	}
	return aitp.BreakerClosed
}

type fixture struct {
	feed     *indexfeed.Feed
	store    *store.Store
	index    *recIndex
	live     *liveness.Tracker
	hosts    []host.Host
	keys     []crypto.PrivKey
	breakers *breakers

	mu      sync.Mutex
	indexed []string
	removed []string
}

// newFixture builds a feed on the first of two unconnected mocknet
// hosts, over a real Badger store and discovery index. The second host's
// key is key 2, whose cards the tests store.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	keys := []crypto.PrivKey{cardtest.Key(t, 1), cardtest.Key(t, 2)}
	nw, err := p2pnet.New(context.Background(), 2, p2pnet.WithKeys(keys...), p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	st, err := store.Open(t.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d, err := discovery.New()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, index: &recIndex{Discovery: d, pushes: map[string][]scoring.Signals{}},
		live: liveness.New(), hosts: nw.Hosts(), keys: keys, breakers: &breakers{open: map[peer.ID]bool{}}}
	f.feed = indexfeed.New(indexfeed.Config{Store: st, Index: f.index, Live: f.live, Host: f.hosts[0], Breakers: f.breakers,
		OnIndexed: func(c *adp.Card) { f.mu.Lock(); f.indexed = append(f.indexed, c.ID); f.mu.Unlock() },
		OnRemoved: func(id string) { f.mu.Lock(); f.removed = append(f.removed, id); f.mu.Unlock() }})
	t.Cleanup(func() { f.feed.Close() })
	return f
}

func (f *fixture) put(t *testing.T, c *adp.Card) {
	t.Helper()
	if ok, err := f.store.PutCard(context.Background(), c, store.SourceGossip, "test"); err != nil || !ok {
		t.Fatalf("put %s: stored %v, %v", c.Name, ok, err)
	}
}

func (f *fixture) start(t *testing.T) {
	t.Helper()
	if err := f.feed.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) seen(ids *[]string, id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(*ids, id)
}

func revocation(t *testing.T, sk crypto.PrivKey, seq uint64) *adp.Card {
	t.Helper()
	c := cardtest.Signed(t, sk, seq, "gone")
	c.Tools, c.Endpoints = []adp.Tool{}, []adp.Endpoint{}
	c.Signature = ""
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}

// The replay is done when Start returns; later cards reach the index
// through the change feed, and a revocation takes the card and its
// signals out.
func TestReplayAndFollow(t *testing.T) {
	f := newFixture(t)
	a := cardtest.Signed(t, f.keys[1], 1, "alpha", "nlp/translation")
	f.put(t, a)
	// A stored interaction record is pushed with the replayed card.
	if err := f.store.RecordCall(context.Background(), a.ID, true, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	if !f.index.Holds(a) || !f.seen(&f.indexed, a.ID) {
		t.Fatal("the held card is not indexed when Start returns")
	}
	if s, n := f.index.last(a.ID); n != 1 || s.Calls != 1 || s.Successes != 1 {
		t.Fatalf("replayed signals = %+v (%d pushes), want one push with the stored call", s, n)
	}

	other := cardtest.Key(t, 3)
	b := cardtest.Signed(t, other, 1, "beta", "coding/code-generation")
	f.put(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	f.feed.AwaitIndexed(ctx, b)
	if !f.index.Holds(b) {
		t.Fatal("AwaitIndexed returned before the index held the stored card")
	}
	if _, n := f.index.last(b.ID); n != 0 {
		t.Fatalf("a card without records had %d signal pushes, want none", n)
	}

	f.live.Heard(a.ID)
	f.put(t, revocation(t, f.keys[1], 2))
	polltest.For(t, wait, "revoked card out of the index", func() bool { return !f.index.Holds(a) && f.seen(&f.removed, a.ID) })
	if s, _ := f.index.last(a.ID); s != (scoring.Signals{}) {
		t.Fatalf("signals after removal = %+v, want zero", s)
	}
	if st := f.live.Get(a.ID); !st.LastHeard.IsZero() {
		t.Fatal("liveness of a removed agent kept")
	}
}

// Calls in flight, call outcomes and sightings are pushed as they
// change; a refusal at dispatch is not recorded.
func TestSignals(t *testing.T) {
	f := newFixture(t)
	c := cardtest.Signed(t, f.keys[1], 1, "alpha", "nlp/translation")
	f.put(t, c)
	// An outcome given before Start waits for the writer.
	f.feed.Called(c.ID, nil, 3*time.Millisecond)
	f.start(t)

	polltest.For(t, wait, "the queued call pushed", func() bool { s, _ := f.index.last(c.ID); return s.Calls == 1 })
	end := f.feed.CallStarted(c.ID)
	if s, _ := f.index.last(c.ID); s.ActiveTasks != 1 || f.feed.Active(c.ID) != 1 {
		t.Fatalf("in flight: pushed %d, Active %d, want 1", s.ActiveTasks, f.feed.Active(c.ID))
	}
	end()
	if s, _ := f.index.last(c.ID); s.ActiveTasks != 0 || f.feed.Active(c.ID) != 0 {
		t.Fatalf("after the call: pushed %d, Active %d, want 0", s.ActiveTasks, f.feed.Active(c.ID))
	}

	f.feed.Called(c.ID, aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no such tool"), time.Millisecond)
	f.feed.Called(c.ID, errors.New("connection lost"), time.Millisecond)
	if got := f.live.Get(c.ID).ConsecutiveFailures; got != 1 {
		t.Fatalf("%d failures in a row, want 1 (the refusal not counted)", got)
	}
	// Outcomes are written in order: once the success after them is
	// pushed, so are they.
	f.feed.Called(c.ID, nil, time.Millisecond)
	polltest.For(t, wait, "the last call pushed", func() bool { s, _ := f.index.last(c.ID); return s.Successes == 2 })
	s, _ := f.index.last(c.ID)
	if s.Calls != 3 || s.Failures != 1 || s.ConsecutiveFailures != 0 {
		t.Fatalf("signals = %+v, want 3 calls (the refusal not counted), 1 failure, none in a row", s)
	}

	_, before := f.index.last(c.ID)
	unknown := cardtest.Signed(t, cardtest.Key(t, 9), 1, "unknown").ID
	f.feed.Heard(unknown)
	if _, n := f.index.last(unknown); n != 0 || !f.live.Get(unknown).LastHeard.IsZero() {
		t.Fatalf("a sighting of an agent whose card is not held: %d pushes, liveness %+v", n, f.live.Get(unknown))
	}
	f.feed.Heard(c.ID)
	s, after := f.index.last(c.ID)
	if after != before+1 || s.LastSeen.IsZero() {
		t.Fatalf("a sighting of a held agent: %d pushes after %d, last seen %v", after, before, s.LastSeen)
	}

	f.breakers.mu.Lock()
	f.breakers.open[f.hosts[1].ID()] = true
	f.breakers.mu.Unlock()
	if got := f.feed.Signals(c.ID).ConsecutiveFailures; got < scoring.FailuresUnavailable {
		t.Fatalf("open circuit: %d failures in a row, want at least %d", got, scoring.FailuresUnavailable)
	}
}

// A connection to a held agent's peer opening and closing is pushed.
func TestConnections(t *testing.T) {
	f := newFixture(t)
	c := cardtest.Signed(t, f.keys[1], 1, "alpha", "nlp/translation")
	f.put(t, c)
	f.start(t)
	ctx := context.Background()
	if err := f.hosts[0].Connect(ctx, peer.AddrInfo{ID: f.hosts[1].ID(), Addrs: f.hosts[1].Addrs()}); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, wait, "connected pushed", func() bool { s, _ := f.index.last(c.ID); return s.Connected })
	if err := f.hosts[0].Network().ClosePeer(f.hosts[1].ID()); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, wait, "disconnected pushed", func() bool { s, n := f.index.last(c.ID); return n > 1 && !s.Connected })
}

// AwaitIndexed gives up when its context ends, well before IndexWait;
// Close is idempotent and a Start after it is refused.
func TestAwaitAndClose(t *testing.T) {
	f := newFixture(t)
	f.start(t)
	never := cardtest.Signed(t, cardtest.Key(t, 4), 1, "never")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() {
		f.feed.AwaitIndexed(ctx, never)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("AwaitIndexed did not return")
	}
	if took := time.Since(start); took >= indexfeed.IndexWait {
		t.Fatalf("AwaitIndexed returned after %v, its own bound, not when its context ended", took)
	}
	if err := f.feed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.feed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.feed.Start(context.Background()); !errors.Is(err, indexfeed.ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
}

// A Start whose replay failed (its context ended) leaves the feed
// unstarted, and the next Start replays.
func TestStartAgainAfterFailure(t *testing.T) {
	f := newFixture(t)
	c := cardtest.Signed(t, f.keys[1], 1, "alpha", "nlp/translation")
	f.put(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.feed.Start(ctx); err == nil {
		t.Fatal("Start with an ended context replayed")
	}
	f.start(t)
	if !f.index.Holds(c) {
		t.Fatal("the second Start did not replay the held card")
	}
}
