package store

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
)

// TestPutReusesKnownHeld checks that the put path takes the held card
// from the offered card or the caller's copy when the stored bytes are
// theirs (no second parse), and parses them otherwise.
func TestPutReusesKnownHeld(t *testing.T) {
	s, err := Open("", WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &adp.Card{Name: "alpha"}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutCard(context.Background(), c, SourceGossip, ""); err != nil {
		t.Fatal(err)
	}
	id, err := s.normalize(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	copyOf, err := adp.ParseCard(c.Raw())
	if err != nil {
		t.Fatal(err)
	}
	other := &adp.Card{Name: "beta"}
	if err := other.Sign(sk); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		known []*adp.Card
		want  *adp.Card // nil: parsed afresh
	}{
		{"the offered card", []*adp.Card{c, nil}, c},
		{"the caller's copy", []*adp.Card{other, copyOf}, copyOf},
		{"neither", []*adp.Card{other, nil}, nil},
	} {
		err := s.db.View(func(txn *badger.Txn) error {
			h, _, err := s.getHeld(txn, cardKey(id), tc.known...)
			if err != nil || h == nil {
				t.Fatalf("%s: getHeld = %v, %v", tc.name, h, err)
			}
			switch {
			case tc.want != nil && h.rec.Card != tc.want:
				t.Errorf("%s: the held card was parsed again", tc.name)
			case tc.want == nil && (h.rec.Card == c || h.rec.Card == other || h.rec.Card.Name != "alpha"):
				t.Errorf("%s: held card %v, want a fresh parse of the stored bytes", tc.name, h.rec.Card)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
