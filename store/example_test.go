package store_test

import (
	"context"
	"fmt"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

func ExampleStore_PutCard() {
	s, err := store.Open("", store.WithInMemory())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	sk, _, _ := cryptoKey()
	c := &adp.Card{
		Name: "echo", Description: "Echoes its input.", Version: "1.0.0",
		Tools:     []adp.Tool{{Name: "echo", Description: "Echo."}},
		Endpoints: []adp.Endpoint{{Protocol: "aitp", URI: "agent://example"}},
	}
	if err := c.Sign(sk); err != nil {
		panic(err)
	}
	stored, _ := s.PutCard(context.Background(), c, store.SourceSelf, "")
	again, _ := s.PutCard(context.Background(), c, store.SourceGossip, "")
	fmt.Println(stored, again, s.Count())
	// Output: true false 1
}

// Mirroring the live card set, as the discovery index does: subscribe
// first, replay Cards, then follow the feed.
func ExampleStore_Subscribe() {
	s, err := store.Open("", store.WithInMemory())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	changes, cancel := s.Subscribe(64)
	defer cancel()
	mirror := map[string]*store.Record{}
	_ = s.Cards(ctx, func(r *store.Record) bool {
		mirror[r.AgentID] = r
		return true
	})

	sk, _, _ := cryptoKey()
	c := &adp.Card{
		Name: "echo", Description: "Echoes its input.", Version: "1.0.0",
		Tools:     []adp.Tool{{Name: "echo", Description: "Echo."}},
		Endpoints: []adp.Endpoint{{Protocol: "aitp", URI: "agent://example"}},
	}
	if err := c.Sign(sk); err != nil {
		panic(err)
	}
	if _, err := s.PutCard(ctx, c, store.SourceGossip, ""); err != nil {
		panic(err)
	}
	ch := <-changes
	switch ch.Kind {
	case store.Upserted:
		mirror[ch.AgentID] = ch.Record
	case store.Removed:
		delete(mirror, ch.AgentID)
	}
	fmt.Println(ch.Kind, len(mirror), mirror[c.ID].Card.Name)
	// Output: upserted 1 echo
}
