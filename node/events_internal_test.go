package node

import (
	"context"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// TestForwardEventsResync: a reader that falls behind loses events but
// gets one resync before anything newer, and the forwarder never blocks.
func TestForwardEventsResync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan store.Change)
	bus := make(chan any)
	out := make(chan nodeapi.Event, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		forwardEvents(ctx, changes, bus, out)
	}()
	for _, id := range []string{"a", "b", "c"} { // out holds one: b and c are dropped
		changes <- store.Change{Kind: store.Upserted, AgentID: id}
	}
	want := []struct {
		kind  nodeapi.EventKind
		agent string
	}{{nodeapi.EventCardUpserted, "a"}, {nodeapi.EventResync, ""}, {nodeapi.EventCardRemoved, "d"}}
	for i, w := range want {
		if i == 2 {
			changes <- store.Change{Kind: store.Removed, AgentID: "d", Reason: "revoked"}
		}
		select {
		case ev := <-out:
			if ev.Kind != w.kind || ev.Agent != w.agent {
				t.Fatalf("event %d = %+v, want %s %q", i, ev, w.kind, w.agent)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d: nothing delivered, want %s", i, w.kind)
		}
	}
	cancel()
	<-done
}
