package liveness_test

import (
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/liveness"
)

func TestTracker(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tr := liveness.New(liveness.WithClock(func() time.Time { return now }), liveness.WithMaxAgents(2))
	if s := tr.Get("a"); s != (liveness.State{}) {
		t.Fatalf("unknown agent: %+v", s)
	}
	tr.Connected("a", true)
	if s := tr.Get("a"); !s.Connected || !s.LastHeard.Equal(now) {
		t.Fatalf("connected: %+v", s)
	}
	now = now.Add(time.Minute)
	tr.Called("a", false)
	tr.Called("a", false)
	if s := tr.Get("a"); s.ConsecutiveFailures != 2 || !s.LastHeard.Equal(now.Add(-time.Minute)) {
		t.Fatalf("failed calls are not heard: %+v", s)
	}
	tr.Called("a", true)
	if s := tr.Get("a"); s.ConsecutiveFailures != 0 || !s.LastHeard.Equal(now) {
		t.Fatalf("a success ends the run: %+v", s)
	}
	tr.Connected("a", false)
	now = now.Add(time.Minute)
	tr.Heard("a")
	if s := tr.Get("a"); s.Connected || !s.LastHeard.Equal(now) {
		t.Fatalf("disconnected, heard: %+v", s)
	}
	// Bounded: a third agent is dropped, a known one still updates.
	if !tr.Heard("b") || tr.Heard("c") || !tr.Heard("a") || tr.Len() != 2 {
		t.Fatalf("bound: len %d", tr.Len())
	}
	tr.Forget("b")
	if tr.Len() != 1 || !tr.Heard("c") {
		t.Fatalf("forget: len %d", tr.Len())
	}
}
