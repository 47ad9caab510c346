package store

import (
	"context"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
)

// TestCardsAt checks every offset of CardsAt, with no card left out, the
// first, a middle and the last one left out, against the full listing,
// with the keys passed over in transactions of 7 (so some offsets end a
// transaction exactly) and of skipBatch.
func TestCardsAt(t *testing.T) {
	ctx := context.Background()
	const n = 40
	s, all := cardsStore(t, n)
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

// cardsStore returns an in-memory store of n cards and their agent ids
// as Cards lists them.
func cardsStore(t *testing.T, n int) (*Store, []string) {
	t.Helper()
	s, err := Open("", WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i := range n {
		if _, err := s.PutCard(context.Background(), cardtest.Signed(t, cardtest.Key(t, byte(i+1)), 1, "alpha"), SourceGossip, ""); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	if err := s.Cards(context.Background(), func(r *Record) bool { all = append(all, r.AgentID); return true }); err != nil {
		t.Fatal(err)
	}
	return s, all
}

func first(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return ids[0]
}

// TestCardsAtPagesAcrossCorrupt: pages read one after another across
// corrupt values that the read of an earlier page found neither repeat
// nor miss a card.
func TestCardsAtPagesAcrossCorrupt(t *testing.T) {
	ctx := context.Background()
	const n = 40
	s, all := cardsStore(t, n)
	// Corrupt the 4th, the 10th (the last of the first page) and the 26th.
	bad := []string{all[3], all[9], all[25]}
	if err := s.db.Update(func(txn *badger.Txn) error {
		for _, id := range bad {
			if err := txn.Set(cardKey(id), []byte{9, 9, 9}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return slices.Contains(bad, id) })
	for _, page := range []int{1, 7, 10} {
		var got []string
		for offset := 0; offset < n; offset += page {
			k := 0
			if err := s.CardsAt(ctx, offset, "", func(r *Record) bool {
				got = append(got, r.AgentID)
				k++
				return k < page
			}); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pages of %d: %d ids, want the %d good ones in order (first difference at %d)", page, len(got), len(want), firstDiff(got, want))
		}
	}
	if len(s.Corrupt()) != len(bad) {
		t.Fatalf("%d corrupt values reported, want %d", len(s.Corrupt()), len(bad))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCardsAtAfterCorruptReplaced: a corrupt value replaced by a valid
// card counts again: the pages read after it neither skip nor repeat.
func TestCardsAtAfterCorruptReplaced(t *testing.T) {
	ctx := context.Background()
	s, all := cardsStore(t, 10)
	bad := all[3]
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(cardKey(bad), []byte{9, 9, 9}) }); err != nil {
		t.Fatal(err)
	}
	page := func() []string {
		var got []string
		for offset := 0; offset < 12; offset += 2 {
			k := 0
			if err := s.CardsAt(ctx, offset, "", func(r *Record) bool { got = append(got, r.AgentID); k++; return k < 2 }); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == bad })
	if got := page(); !slices.Equal(got, want) {
		t.Fatalf("across the corrupt value: %d ids, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	// The owner's newer card replaces the corrupt value.
	var newer *adp.Card
	for k := byte(1); k <= 10 && newer == nil; k++ {
		if c := cardtest.Signed(t, cardtest.Key(t, k), 2, "alpha"); c.ID == bad {
			newer = c
		}
	}
	if newer == nil {
		t.Fatal("no key for the corrupt card")
	}
	if stored, err := s.PutCard(ctx, newer, SourceGossip, ""); err != nil || !stored {
		t.Fatalf("the newer card over the corrupt value: stored %v, %v", stored, err)
	}
	if got := page(); !slices.Equal(got, all) {
		t.Fatalf("after the corrupt value was replaced: %d ids, want %d (first difference at %d)", len(got), len(all), firstDiff(got, all))
	}
}
