package cardsync_test

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/promtest"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/intake"
)

// TestMetrics: the counters of Stats are exported under their outcomes,
// and Close takes them off the registry.
func TestMetrics(t *testing.T) {
	self, a, b, c := newAgent(t), newAgent(t), newAgent(t), newAgent(t)
	in, _ := newIntake(t, self, a.card(t, 2))
	forged := b.card(t, 2)
	forgedRaw := append([]byte(nil), forged.Raw()...)
	forgedRaw[len(forgedRaw)-3] ^= 1 // inside the signature
	entries := append(list(a.card(t, 1), c.card(t, 1)), cardsync.Entry{ID: forged.ID, Card: forgedRaw})
	reg := prometheus.NewRegistry()
	s, err := cardsync.New(fixed(entries), in, cardsync.Registerer(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Sync(context.Background(), a.id); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"adpnode_cardsync_syncs_total{ok}": 1, "adpnode_cardsync_syncs_total{failed}": 0,
		"adpnode_cardsync_cards_total{skipped}": 1, "adpnode_cardsync_cards_total{stored}": 1,
		"adpnode_cardsync_cards_total{refused}": 1, "adpnode_cardsync_cards_total{kept_held}": 0,
		"adpnode_cardsync_connections_total{deferred}": 0, "adpnode_cardsync_connections_total{dropped}": 0,
		"adpnode_cardsync_behind_total": 0, "adpnode_cardsync_republished_total": 0, "adpnode_cardsync_rounds_total": 0,
	}
	if got := promtest.Values(t, reg); !maps.Equal(got, want) {
		t.Fatalf("metrics %v\nwant    %v", got, want)
	}

	// A failed fetch counts as a failed sync.
	freg := prometheus.NewRegistry()
	failing, err := cardsync.New(func(context.Context, peer.ID) ([]cardsync.Entry, error) { return nil, errors.New("down") }, in,
		cardsync.Registerer(freg))
	if err != nil {
		t.Fatal(err)
	}
	defer failing.Close()
	if err := failing.Sync(context.Background(), a.id); err == nil {
		t.Fatal("a failed fetch made no error")
	}
	if got := promtest.Values(t, freg); got["adpnode_cardsync_syncs_total{failed}"] != 1 || got["adpnode_cardsync_syncs_total{ok}"] != 0 {
		t.Fatalf("after a failed fetch: %v", got)
	}

	// A newer card the intake does not store (it kept the held one)
	// counts as kept_held.
	kreg := prometheus.NewRegistry()
	ks, err := cardsync.New(fixed(list(c.card(t, 2))), keepsHeld{in}, cardsync.Registerer(kreg))
	if err != nil {
		t.Fatal(err)
	}
	defer ks.Close()
	if err := ks.Sync(context.Background(), a.id); err != nil {
		t.Fatal(err)
	}
	if got := promtest.Values(t, kreg); got["adpnode_cardsync_cards_total{kept_held}"] != 1 || got["adpnode_cardsync_cards_total{stored}"] != 0 {
		t.Fatalf("a newer card the intake did not store: %v", got)
	}

	// A second Syncer on the same registry is refused; after Close the
	// registry holds none of the series.
	if _, err := cardsync.New(fixed(nil), in, cardsync.Registerer(reg)); err == nil {
		t.Fatal("a second Syncer registered on the same registry")
	}
	s.Close()
	if got := promtest.Values(t, reg); len(got) != 0 {
		t.Fatalf("%d series after Close, want 0", len(got))
	}
}

// keepsHeld is an intake whose Admit parses the card and stores nothing,
// as when the held card stays.
type keepsHeld struct{ *intake.Intake }

func (k keepsHeld) Admit(_ context.Context, raw []byte, _ intake.From) (*adp.Card, bool, error) {
	c, err := adp.ParseCard(raw)
	return c, false, err
}
