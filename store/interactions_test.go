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

func TestInteractionRecords(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	dir := t.TempDir()
	s := openStore(t, dir, store.WithClock(clk.Now))
	id := adp.AgentID(newPeer(t))

	st, err := s.Stats(ctx, id)
	if err != nil || st != (store.Stats{}) {
		t.Fatalf("unknown agent: %+v, %v", st, err)
	}
	steps := []error{
		s.RecordCall(ctx, id, true, 10*time.Millisecond),
		s.RecordCall(ctx, id, true, 30*time.Millisecond),
		s.RecordCall(ctx, id, false, 50*time.Millisecond),
		s.RecordCall(ctx, id, false, -time.Second), // counts as 0
		s.CompleteTask(ctx, id),
		s.Rate(ctx, id, "alice", 5),
		s.Rate(ctx, id, "bob", 2),
		s.Rate(ctx, id, "alice", 3), // replaces alice's 5
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := store.Stats{
		Calls: 4, Successes: 2, Failures: 2,
		TotalLatency: 90 * time.Millisecond, MeanLatency: 22500 * time.Microsecond,
		RatingCount: 2, RatingSum: 5, RatingMean: 2.5,
		CompletedTasks: 1,
		LastSeen:       clk.Now(), LastCall: clk.Now(),
	}
	check := func(s *store.Store, when string) {
		t.Helper()
		got, err := s.Stats(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !got.LastSeen.Equal(want.LastSeen) || !got.LastCall.Equal(want.LastCall) {
			t.Fatalf("%s: times %v %v, want %v", when, got.LastSeen, got.LastCall, want.LastSeen)
		}
		got.LastSeen, got.LastCall = want.LastSeen, want.LastCall
		if got != want {
			t.Fatalf("%s: stats\n got %+v\nwant %+v", when, got, want)
		}
	}
	check(s, "live")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check(openStore(t, dir, store.WithClock(clk.Now)), "after reopen")
}

func TestInteractionRejects(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	id := adp.AgentID(newPeer(t))
	cases := []struct {
		name string
		err  error
	}{
		{"zero stars", s.Rate(ctx, id, "alice", 0)},
		{"six stars", s.Rate(ctx, id, "alice", 6)},
		{"empty rater", s.Rate(ctx, id, "", 3)},
		{"long rater", s.Rate(ctx, id, string(make([]byte, store.MaxRaterLen+1)), 3)},
		{"bad agent", s.RecordCall(ctx, "agent://bogus", true, 0)},
		{"bad agent stats", func() error { _, err := s.Stats(ctx, "nope"); return err }()},
	}
	for _, c := range cases {
		if !errors.Is(c.err, store.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, c.err)
		}
	}
	if st, _ := s.Stats(ctx, id); st != (store.Stats{}) {
		t.Fatalf("rejected calls changed stats: %+v", st)
	}
}

func TestConcurrentInteractions(t *testing.T) {
	ctx := context.Background()
	s := openMem(t)
	id := adp.AgentID(newPeer(t))
	const workers, calls = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				if err := s.RecordCall(ctx, id, i%5 != 0, time.Millisecond); err != nil {
					t.Error(err)
				}
			}
			if err := s.Rate(ctx, id, string(rune('a'+w)), 1+w%5); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, err := s.Stats(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Calls != workers*calls || st.Successes != workers*calls*4/5 || st.TotalLatency != workers*calls*time.Millisecond {
		t.Fatalf("stats = %+v", st)
	}
	if st.RatingCount != workers || st.RatingSum != 1+2+3+4+5+1+2+3 {
		t.Fatalf("ratings = %d/%d", st.RatingCount, st.RatingSum)
	}
}
