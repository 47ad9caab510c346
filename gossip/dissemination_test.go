package gossip_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestMissedGossipFoundInDHT runs the DHT and gossip together. The last
// node runs no gossip at all, so it misses the publication; it must still
// get the card from the DHT by agent id and find the agent by a parent of
// its skill tag.
func TestMissedGossipFoundInDHT(t *testing.T) {
	const n = 12
	// The routers start before the hosts connect, as in a node: a router
	// started beside connections whose peers start theirs at the same
	// moment can miss them for good (go-libp2p-pubsub drops a peer's
	// protocol update that arrives while its first stream attempt, begun
	// before the peer had the protocol, is in flight).
	nw := newNet(t, n, p2pnet.Unconnected)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	boot, _ := nw.AddrInfo(0)
	dhts := make([]*dht.DHT, n)
	for i, h := range nw.Hosts() {
		d, err := dht.New(h, dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot))
		if err != nil {
			t.Fatal(err)
		}
		dhts[i] = d
		t.Cleanup(func() {
			if err := d.Close(); err != nil {
				t.Errorf("close dht: %v", err)
			}
		})
	}
	gossipers := startNodes(t, nw, 0, n-1)
	if err := nw.ConnectTopology(ctx, p2pnet.Star); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, d := range dhts[1:] {
		wg.Go(func() { errs[i] = d.Bootstrap(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 15*time.Second, "meshes built", func() bool {
		for _, g := range gossipers {
			if g.g.MeshSize() == 0 {
				return false
			}
		}
		return true
	})

	owner := gossipers[4]
	card := cardtest.Signed(t, owner.sk, 1, "translator", "nlp/translation")
	if err := owner.g.Publish(ctx, card); err != nil {
		t.Fatal(err)
	}
	if err := dhts[4].PutCard(ctx, card); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 15*time.Second, "card at every gossiping node", func() bool {
		for _, g := range gossipers {
			if g != owner && g.store.seq(owner.agent()) != 1 {
				return false
			}
		}
		return true
	})

	missed := dhts[n-1]
	got, err := missed.GetCard(ctx, owner.agent())
	if err != nil {
		t.Fatalf("GetCard: %v", err)
	}
	if !bytes.Equal(got.Raw(), card.Raw()) {
		t.Fatal("GetCard returned another card")
	}
	ps, err := missed.FindByTag(ctx, "nlp", 10)
	if err != nil {
		t.Fatalf("FindByTag: %v", err)
	}
	if !slices.ContainsFunc(ps, func(ai peer.AddrInfo) bool { return ai.ID == owner.h.ID() }) {
		t.Fatalf("FindByTag(nlp) = %v, want the owner %s", ps, owner.h.ID())
	}
}
