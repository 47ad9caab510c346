package node_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
)

// TestCardFollowsNewAddress gives a running node a listen address it did
// not start with, as a node behind a NAT gains its relay addresses after
// start: the node's card gets the address, with a new seq, and a peer
// receives that card.
func TestCardFollowsNewAddress(t *testing.T) {
	a := startNode(t, testNode{name: "moving"})
	b := startNode(t, testNode{name: "watcher", bootstrap: []string{addrOf(t, a)}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	old := a.Card()
	held := func() *adp.Card {
		rec, err := b.HeldCard(ctx, a.AgentID())
		if err != nil {
			return nil
		}
		return rec.Card
	}
	polltest.Until(t, 30*time.Second, func() error {
		if held() == nil {
			return fmt.Errorf("peer lacks the card")
		}
		return nil
	})

	if err := a.Host().Network().Listen(ma.StringCast("/ip4/127.0.0.1/tcp/0")); err != nil {
		t.Fatal(err)
	}
	var added string
	for _, m := range a.Addrs() {
		if !slices.ContainsFunc(old.Endpoints, func(e adp.Endpoint) bool { return e.URI == m.String() }) {
			added = m.String()
		}
	}
	if added == "" {
		t.Fatalf("no new address among %v", a.Addrs())
	}
	hasAdded := func(c *adp.Card) bool {
		return c != nil && slices.ContainsFunc(c.Endpoints, func(e adp.Endpoint) bool {
			return e.Protocol == node.EndpointLibp2p && e.URI == added
		})
	}
	polltest.Until(t, 30*time.Second, func() error {
		if c := a.Card(); !hasAdded(c) || *c.Seq <= *old.Seq {
			return fmt.Errorf("own card at seq %d lacks %s", *c.Seq, added)
		}
		if !hasAdded(held()) {
			return fmt.Errorf("peer's copy lacks %s", added)
		}
		return nil
	})
}
