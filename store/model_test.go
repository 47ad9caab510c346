package store_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// TestPutCardMatchesModel puts random versions of one agent's card
// (seq, revocation, signature, updated_at all varied) in random orders and
// checks every answer and the final state against a model that keeps the
// first card no other supersedes: the held card is replaced exactly when
// adp.Compare says the new one supersedes it.
func TestPutCardMatchesModel(t *testing.T) {
	stamps := []string{"", "2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z"}
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		sk := newKey(t)
		var versions []*adp.Card
		for range 5 {
			versions = append(versions, makeCard(t, sk, cardSpec{
				seq:       uint64(rng.IntN(4)), // 0: absent
				revoke:    rng.IntN(4) == 0,
				unsigned:  rng.IntN(4) == 0,
				updatedAt: stamps[rng.IntN(len(stamps))],
				name:      []string{"a", "b"}[rng.IntN(2)],
			}))
		}
		s := openMem(t)
		ctx := context.Background()
		var held *adp.Card
		for step := range 10 {
			c := versions[rng.IntN(len(versions))]
			wantStored := adp.Compare(c, held) > 0
			if wantStored {
				held = c
			}
			got, err := s.PutCard(ctx, c, store.SourceGossip, "")
			if err != nil {
				t.Fatal(err)
			}
			if got != wantStored {
				t.Fatalf("seed %d step %d: stored = %v, model says %v", seed, step, got, wantStored)
			}
		}
		rec, err := s.Card(ctx, held.ID)
		switch {
		case held.IsRevocation():
			if !errors.Is(err, store.ErrRevoked) {
				t.Fatalf("seed %d: model holds a revocation, store: %v", seed, err)
			}
			if s.Count() != 0 {
				t.Fatalf("seed %d: Count %d", seed, s.Count())
			}
		case err != nil:
			t.Fatalf("seed %d: %v", seed, err)
		case !bytes.Equal(rec.Card.Raw(), held.Raw()):
			t.Fatalf("seed %d: store holds %s, model %s", seed, rec.Card.Raw(), held.Raw())
		}
		if h := s.Held(held.ID); h == nil || !bytes.Equal(h.Raw(), held.Raw()) {
			t.Fatalf("seed %d: Held differs from the model", seed)
		}
	}
}
