package store

import (
	"testing"
	"time"
)

// TestPushRefreshKeepsPendingUpsert checks the coalescing rule of the
// feed: a refresh pushed over a pending Upserted change stays Upserted
// (with the refreshed record), so a reader never misses a new card; over
// nothing pending, or over a delivered change, it is Refreshed.
func TestPushRefreshKeepsPendingUpsert(t *testing.T) {
	sub := &subscriber{pending: make(map[string]Change), wake: make(chan struct{}, 1)}
	t0 := time.Unix(100, 0)
	sub.push(Change{Kind: Upserted, AgentID: "a", Record: &Record{ReceivedAt: t0}})
	sub.push(Change{Kind: Refreshed, AgentID: "a", Record: &Record{ReceivedAt: t0.Add(time.Minute)}})
	c, ok := sub.pop()
	if !ok || c.Kind != Upserted || !c.Record.ReceivedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("coalesced change = %v %v, want upserted with the refreshed time", c.Kind, c.Record)
	}
	sub.push(Change{Kind: Refreshed, AgentID: "a", Record: &Record{ReceivedAt: t0.Add(2 * time.Minute)}})
	if c, _ := sub.pop(); c.Kind != Refreshed {
		t.Fatalf("lone refresh delivered as %v", c.Kind)
	}
	sub.push(Change{Kind: Refreshed, AgentID: "a"})
	sub.push(Change{Kind: Removed, AgentID: "a"})
	if c, _ := sub.pop(); c.Kind != Removed {
		t.Fatalf("refresh then removal delivered as %v", c.Kind)
	}
	if _, ok := sub.pop(); ok {
		t.Fatal("more than one change pending per agent")
	}
}
