package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/store"
)

func TestPrometheusMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := store.NewPrometheusMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewPrometheusMetrics(reg); err == nil {
		t.Fatal("registering twice on one registry succeeded")
	}
	clk := newClock()
	s := openMem(t, store.WithMetrics(m), store.WithClock(clk.Now), store.WithGrace(0))
	sk := newKey(t)
	put(t, s, makeCard(t, sk, cardSpec{seq: 2}), store.SourceGossip)
	put(t, s, makeCard(t, sk, cardSpec{seq: 1}), store.SourceGossip)
	put(t, s, makeCard(t, newKey(t), cardSpec{seq: 1, ttl: 5}), store.SourceDHT)
	put(t, s, makeCard(t, sk, cardSpec{seq: 3, revoke: true}), store.SourceGossip)
	clk.Advance(10 * time.Second)
	if _, err := s.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		source, outcome string
		want            float64
	}{
		{"gossip", "stored", 1},
		{"gossip", "ignored", 1},
		{"gossip", "revoked", 1},
		{"dht", "stored", 1},
	}
	for _, c := range checks {
		got := gathered(t, reg, "adpnode_store_card_puts_total", map[string]string{"source": c.source, "outcome": c.outcome})
		if got != c.want {
			t.Errorf("puts{%s,%s} = %v, want %v", c.source, c.outcome, got, c.want)
		}
	}
	if got := gathered(t, reg, "adpnode_store_cards_removed_total", map[string]string{"reason": "expired"}); got != 1 {
		t.Errorf("expired removals = %v, want 1", got)
	}
	if got := gathered(t, reg, "adpnode_store_cards_removed_total", map[string]string{"reason": "revoked"}); got != 1 {
		t.Errorf("revoked removals = %v, want 1", got)
	}
	if got := gathered(t, reg, "adpnode_store_cards", nil); got != 0 {
		t.Errorf("cards gauge = %v, want 0", got)
	}
}

// gathered returns the value of the series of name with exactly labels.
func gathered(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue metrics
				}
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
