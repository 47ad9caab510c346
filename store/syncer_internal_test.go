package store

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
