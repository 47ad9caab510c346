package intake_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/store"
)

func newKey(t *testing.T) (crypto.PrivKey, peer.ID) {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return sk, p
}

func signed(t *testing.T, sk crypto.PrivKey, seq uint64) *adp.Card {
	t.Helper()
	c := &adp.Card{Name: "alpha", Seq: &seq, Metadata: &adp.Metadata{UpdatedAt: time.Unix(int64(seq), 0).UTC().Format(time.RFC3339)}}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open("", store.WithInMemory())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAdmitSteps checks each step's refusal, in order, and that a card
// offered again is not verified again.
func TestAdmitSteps(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, self := newKey(t)
	in := intake.New(s, adp.AgentID(self))
	sk, owner := newKey(t)
	_, other := newKey(t)
	c1 := signed(t, sk, 1)
	forged := bytes.Replace(c1.Raw(), []byte("alpha"), []byte("alphb"), 1)

	for _, tc := range []struct {
		name  string
		raw   []byte
		owner peer.ID
		step  adp.Step
	}{
		{"oversized", make([]byte, adp.MaxCardSize+1), "", adp.StepSize},
		{"not a card", []byte("not json"), "", adp.StepParse},
		{"third party", c1.Raw(), other, adp.StepOwner},
		{"forged", forged, owner, adp.StepVerify},
	} {
		_, stored, err := in.Admit(ctx, tc.raw, intake.From{Source: store.SourceGossip, Owner: tc.owner})
		if stored || adp.StepOf(err) != tc.step {
			t.Errorf("%s: stored %v, err %v (step %v), want step %v", tc.name, stored, err, adp.StepOf(err), tc.step)
		}
	}
	if in.Stats().Offered[store.SourceGossip] != 0 {
		t.Fatal("refused cards reached the store step")
	}

	for i, src := range []store.Source{store.SourceGossip, store.SourceDHT, store.SourceAdvertise} {
		_, stored, err := in.Admit(ctx, c1.Raw(), intake.From{Source: src, Owner: owner})
		if err != nil || stored != (i == 0) {
			t.Fatalf("offer %d by %s: stored %v, %v", i, src, stored, err)
		}
	}
	st := in.Stats()
	// The forged card's failed verification, then c1's one.
	if st.Verifications != 2 || st.Stored != 1 || st.Rejected != 4 {
		t.Fatalf("stats %+v: want 2 verifications, 1 stored, 4 rejected", st)
	}
	rec, err := s.Card(ctx, c1.ID)
	if err != nil || rec.Source != store.SourceGossip {
		t.Fatalf("held %+v, %v: want the first source kept", rec, err)
	}
}

// TestKeep checks the last step: the own card refused, an older card not
// stored, and GapsOnly leaving a held card's freshness alone.
func TestKeep(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	skSelf, self := newKey(t)
	in := intake.New(s, adp.AgentID(self))
	if _, err := in.Keep(ctx, signed(t, skSelf, 1), intake.From{Source: store.SourceDHT}); !errors.Is(err, intake.ErrOwnCard) {
		t.Fatalf("own card: %v, want ErrOwnCard", err)
	}
	sk, _ := newKey(t)
	c1, c2 := signed(t, sk, 1), signed(t, sk, 2)
	if stored, err := in.Keep(ctx, c2, intake.From{Source: store.SourceDHT}); !stored || err != nil {
		t.Fatalf("new card: %v, %v", stored, err)
	}
	// Held remembers the card for the next Keep of that agent.
	if h := in.Held(c2.ID); h == nil || !bytes.Equal(h.Raw(), c2.Raw()) {
		t.Fatalf("Held = %v", h)
	}
	if stored, err := in.Keep(ctx, c1, intake.From{Source: store.SourceGossip}); stored || err != nil {
		t.Fatalf("older card: %v, %v", stored, err)
	}
	before, _ := s.Card(ctx, c2.ID)
	if stored, err := in.Keep(ctx, c2, intake.From{Source: store.SourceImport, GapsOnly: true}); stored || err != nil {
		t.Fatalf("gaps only, held: %v, %v", stored, err)
	}
	after, _ := s.Card(ctx, c2.ID)
	if !after.ReceivedAt.Equal(before.ReceivedAt) || after.Source != store.SourceDHT {
		t.Fatalf("gaps only changed the held record: %+v, was %+v", after, before)
	}
}

// TestOnStored checks that the hook sees each card that became the held
// card, with its provenance, and not a card received again or an older one.
func TestOnStored(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, self := newKey(t)
	var seen []string
	in := intake.New(s, adp.AgentID(self), intake.OnStored(func(c *adp.Card, from intake.From) {
		seen = append(seen, fmt.Sprintf("%d/%s", *c.Seq, from.Source))
	}))
	sk, owner := newKey(t)
	c1, c2 := signed(t, sk, 1), signed(t, sk, 2)
	for _, o := range []struct {
		c   *adp.Card
		src store.Source
	}{{c1, store.SourceGossip}, {c1, store.SourceDHT}, {c2, store.SourceDHT}, {c1, store.SourceAdvertise}, {c2, store.SourceGossip}} {
		if _, _, err := in.Admit(ctx, o.c.Raw(), intake.From{Source: o.src, Owner: owner}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(seen, " "); got != "1/gossip 2/dht" {
		t.Fatalf("OnStored saw %q, want \"1/gossip 2/dht\"", got)
	}
}

// TestOnKept: OnKept sees the cards stored and the held card offered
// again, never an older card the store refused, so that a replay of an
// old card (a directory's card before it dropped the skill) does not
// undo what the newer one told.
func TestOnKept(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, self := newKey(t)
	var seen []string
	in := intake.New(s, adp.AgentID(self), intake.OnKept(func(c *adp.Card) { seen = append(seen, fmt.Sprint(*c.Seq)) }))
	sk, owner := newKey(t)
	c1, c2 := signed(t, sk, 1), signed(t, sk, 2)
	for _, c := range []*adp.Card{c2, c1, c2} {
		if _, _, err := in.Admit(ctx, c.Raw(), intake.From{Source: store.SourceDHT, Owner: owner}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(seen, " "); got != "2 2" {
		t.Fatalf("OnKept saw %q, want \"2 2\" (the older card refused, the held one again)", got)
	}
}
