package node_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// TestEvents subscribes on a node before a second one joins: the feed
// reports the peer's connection and its card's arrival, then, once the
// peer closes, its disconnection; after Close, Events fails.
func TestEvents(t *testing.T) {
	a := startNode(t, testNode{name: "a"})
	evs, cancel, err := a.Events(16)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	seen := map[nodeapi.EventKind]nodeapi.Event{}
	drain := func() {
		for {
			select {
			case ev, ok := <-evs:
				if !ok {
					return
				}
				seen[ev.Kind] = ev
			default:
				return
			}
		}
	}
	b := startNode(t, testNode{name: "b <i>", bootstrap: []string{addrOf(t, a)}})
	polltest.Until(t, 20*time.Second, func() error {
		drain()
		if seen[nodeapi.EventPeerConnected].Agent != b.AgentID() {
			return fmt.Errorf("no peer.connected for %s; seen %v", b.AgentID(), seen)
		}
		if up := seen[nodeapi.EventCardUpserted]; up.Agent != b.AgentID() || up.Name != "b <i>" {
			return fmt.Errorf("no card.upserted for b; seen %v", seen)
		}
		return nil
	})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 20*time.Second, func() error {
		drain()
		if seen[nodeapi.EventPeerDisconnected].Agent != b.AgentID() {
			return fmt.Errorf("no peer.disconnected for %s; seen %v", b.AgentID(), seen)
		}
		return nil
	})
	cancel()
	cancel() // idempotent
	// cancel waited for the goroutine, which closed the channel.
	for range evs {
	}
	a.Close()
	if _, _, err := a.Events(1); !errors.Is(err, node.ErrClosed) {
		t.Fatalf("Events after Close: %v, want ErrClosed", err)
	}
}
