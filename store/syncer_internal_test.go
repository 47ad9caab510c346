package store

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
)

// TestSyncerGroupsWaiters: waiters that arrive while a sync runs share one
// following sync, and none returns on a sync that began before its call.
func TestSyncerGroupsWaiters(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	y := newSyncer(func() error {
		if calls.Add(1) == 1 {
			<-release // hold sync 1 until every waiter is parked
		}
		return nil
	})
	first := make(chan error, 1)
	go func() { first <- y.wait() }()

	const n = 10
	var wg sync.WaitGroup
	var returned atomic.Int32
	for range n {
		wg.Go(func() {
			if err := y.wait(); err != nil {
				t.Error(err)
			}
			returned.Add(1)
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		y.mu.Lock()
		parked := y.waiting
		y.mu.Unlock()
		if parked == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waiters parked", parked, n)
		}
		runtime.Gosched()
	}
	if got := returned.Load(); got != 0 {
		t.Fatalf("%d waiters returned before their sync", got)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d syncs for 1 + %d waiters, want 2", got, n)
	}
}

func TestSyncerReportsError(t *testing.T) {
	boom := errors.New("disk on fire")
	fail := true
	y := newSyncer(func() error {
		if fail {
			return boom
		}
		return nil
	})
	if err := y.wait(); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	fail = false
	if err := y.wait(); err != nil {
		t.Fatalf("a later good sync still reports %v", err)
	}
}

// TestSyncerSoon: soon hands out one sync at a time while it is queued,
// and a call after the queued sync has started asks for another, which
// runs after it (so it covers the writes committed meanwhile).
func TestSyncerSoon(t *testing.T) {
	var calls atomic.Int32
	y := newSyncer(func() error { calls.Add(1); return nil })
	var queued []func() error
	spawn := func(f func() error) { queued = append(queued, f) }
	y.soon(spawn)
	y.soon(spawn)
	y.soon(spawn)
	if len(queued) != 1 {
		t.Fatalf("%d syncs queued by three calls before any started, want 1", len(queued))
	}
	if err := queued[0](); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("%d syncs run, want 1", got)
	}
	y.soon(spawn)
	if len(queued) != 2 {
		t.Fatalf("a call after the queued sync ran queued %d in all, want 2", len(queued))
	}
	if err := queued[1](); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d syncs run, want 2", got)
	}
}

// TestPutSyncLater: a put with SyncLater returns while the disk sync it
// started is still running; a put without it returns only after a sync
// that began after its write.
func TestPutSyncLater(t *testing.T) {
	s, err := Open("", WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c1, c2 := signedCard(t, "alpha"), signedCard(t, "beta")
	checkSyncLater(t, s, func() error {
		stored, err := s.PutCard(ctx, c1, SourceGossip, "", SyncLater())
		if err == nil && !stored {
			err = errors.New("not stored")
		}
		return err
	}, func() error {
		_, err := s.PutCard(ctx, c2, SourceImport, "api")
		return err
	})
	if s.Held(c1.ID) == nil {
		t.Fatal("the card put with SyncLater is not held")
	}
}

// TestRecordCallSyncLater: a call record returns while the disk sync it
// started is blocked; a rating, which its rater is told about, waits.
func TestRecordCallSyncLater(t *testing.T) {
	s, err := Open("", WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := signedCard(t, "gamma").ID
	ctx := context.Background()
	checkSyncLater(t, s,
		func() error { return s.RecordCall(ctx, id, true, time.Millisecond) },
		func() error { return s.Rate(ctx, id, "rater", 4) })
	st, err := s.Stats(ctx, id)
	if err != nil || st.Calls != 1 {
		t.Fatalf("stats %+v, %v; want 1 call", st, err)
	}
}

// checkSyncLater makes s's disk syncs block until released, then checks
// that later returns while the sync it started is blocked, and that acked
// returns only once a sync begun after its write has ended: two syncs in
// all.
func checkSyncLater(t *testing.T, s *Store, later, acked func() error) {
	t.Helper()
	entered := make(chan struct{}, 4)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock() // also on failure, so that the store can close
	var calls atomic.Int32
	s.syncer = newSyncer(func() error {
		calls.Add(1)
		entered <- struct{}{}
		<-release
		return nil
	})
	lateDone := make(chan error, 1)
	go func() { lateDone <- later() }()
	<-entered // the background sync it started is running, blocked
	select {
	case err := <-lateDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write waits for the blocked sync")
	}
	done := make(chan error, 1)
	go func() { done <- acked() }()
	release <- struct{}{} // the first sync ends; it began before acked's write
	<-entered             // acked runs a sync of its own
	select {
	case err := <-done:
		t.Fatalf("the acknowledged write returned (%v) before its own sync ended", err)
	default:
	}
	unblock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d syncs, want 2", got)
	}
}

// signedCard returns a card named name of a new agent, signed.
func signedCard(t *testing.T, name string) *adp.Card {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &adp.Card{Name: name}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}
