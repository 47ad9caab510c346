package dht_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/internal/promtest"
)

// TestMetrics: a DHT started with Registerer exports its counters and its
// routing table's size, and Close takes them off the registry.
func TestMetrics(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newCluster(t, 2, p2pnet.Mocknet)
	sk0, _ := c.net.Key(0)
	h0, _ := c.net.Host(0)
	if err := c.dhts[0].PutCard(ctx, cardtest.Signed(t, sk0, 1, "alpha", "nlp")); err != nil {
		t.Fatal(err)
	}

	idx, err := c.net.Add(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := c.net.Host(idx)
	sk, _ := c.net.Key(idx)
	boot, _ := c.net.AddrInfo(0)
	reg := prometheus.NewRegistry()
	d, err := dht.New(h, dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot), dht.Registerer(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c.bootstrap(t, ctx, d)
	polltest.For(t, 10*time.Second, "a routing table of two peers", func() bool { return d.RoutingTableSize() == 2 })
	if err := d.PutCard(ctx, cardtest.Signed(t, sk, 1, "beta", "vision")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.GetCard(ctx, adp.AgentID(h0.ID())); err != nil {
		t.Fatal(err)
	}
	stranger, _ := peer.IDFromPrivateKey(newKey(t))
	if _, err := d.GetCard(ctx, adp.AgentID(stranger)); err == nil {
		t.Fatal("a card of nobody found")
	}

	got := promtest.Values(t, reg)
	want := map[string]float64{
		"adpnode_dht_card_puts_total{put}": 1, "adpnode_dht_card_puts_total{republish}": 0,
		"adpnode_dht_republish_failures_total": 0,
		"adpnode_dht_card_gets_total{found}":   1, "adpnode_dht_card_gets_total{missing}": 1,
		"adpnode_dht_incoming_records_total{accepted}": 0, "adpnode_dht_incoming_records_total{dropped}": 0,
		"adpnode_dht_incoming_records_total{invalid}": 0,
		"adpnode_dht_puts_refused_total":              0,
		"adpnode_dht_provides_total":                  got["adpnode_dht_provides_total"], // as many as the skill's keys
		"adpnode_dht_routing_table_peers":             2,
	}
	if !maps.Equal(got, want) || got["adpnode_dht_provides_total"] < 1 {
		t.Fatalf("metrics %v\nwant    %v (provides at least 1)", got, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := promtest.Values(t, reg); len(got) != 0 {
		t.Fatalf("%d series after Close, want 0", len(got))
	}
}
