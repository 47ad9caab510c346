package store

import (
	"context"
	"slices"
	"testing"

	"github.com/adpnode/adpnode/internal/cardtest"
)

// TestCardsAt checks every offset of CardsAt, with no card left out, the
// first, a middle and the last one left out, against the full listing,
// with the keys passed over in transactions of 7 (so some offsets end a
// transaction exactly) and of skipBatch.
func TestCardsAt(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 40
	for i := range n {
		if _, err := s.PutCard(ctx, cardtest.Signed(t, cardtest.Key(t, byte(i+1)), 1, "alpha"), SourceGossip, ""); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	if err := s.Cards(ctx, func(r *Record) bool { all = append(all, r.AgentID); return true }); err != nil {
		t.Fatal(err)
	}
	if len(all) != n || !slices.IsSorted(all) {
		t.Fatalf("Cards listed %d ids (sorted %v), want %d sorted", len(all), slices.IsSorted(all), n)
	}
	for _, except := range []string{"", all[0], all[n/2], all[n-1]} {
		want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == except })
		for _, batch := range []int{7, skipBatch} {
			for offset := 0; offset <= len(want)+1; offset++ {
				var got []string
				err := s.cardsAt(ctx, offset, except, batch, func(r *Record) bool { got = append(got, r.AgentID); return true })
				if err != nil {
					t.Fatal(err)
				}
				if w := want[min(offset, len(want)):]; !slices.Equal(got, w) {
					t.Fatalf("except %q, batch %d, offset %d: got %d ids from %v, want %d", except, batch, offset, len(got), first(got), len(w))
				}
			}
		}
	}
	// fn's false ends the listing.
	seen := 0
	if err := s.CardsAt(ctx, 5, "", func(*Record) bool { seen++; return seen < 3 }); err != nil || seen != 3 {
		t.Fatalf("early stop: seen %d, err %v", seen, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.CardsAt(cctx, 5, "", func(*Record) bool { return true }); err == nil {
		t.Fatal("CardsAt on an ended context: no error")
	}
}

func first(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return ids[0]
}
