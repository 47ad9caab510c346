package dht_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestRepublish shows the republish loop storing the card on a node that
// joined after the first put: once the original holders are gone, that
// node still answers from its own store.
func TestRepublish(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newCluster(t, 2, p2pnet.Mocknet, dht.RepublishInterval(time.Second))
	sk, _ := c.net.Key(0)
	h0, _ := c.net.Host(0)
	card := cardtest.Signed(t, sk, 1, "alpha", "nlp")
	if err := c.dhts[0].PutCard(ctx, card); err != nil {
		t.Fatal(err)
	}

	// A late joiner, bootstrapped through host 1 only.
	idx, err := c.net.Add(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := c.net.Host(idx)
	boot, _ := c.net.AddrInfo(1)
	late, err := dht.New(h2, dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot))
	if err != nil {
		t.Fatal(err)
	}
	c.dhts = append(c.dhts, late)
	c.bootstrap(t, ctx, late)
	polltest.For(t, 10*time.Second, "routing table of host 0 holds the late joiner", func() bool {
		return c.dhts[0].RoutingTableSize() == 2
	})
	before := c.dhts[0].Stats()
	// A round counts its provider records before the card: wait for both.
	polltest.For(t, 10*time.Second, "republished, provider records announced again, after the late joiner arrived", func() bool {
		s := c.dhts[0].Stats()
		return s.Republished > before.Republished && s.Provides > before.Provides
	})

	// Take the owner and the first holder away.
	for _, i := range []int{0, 1} {
		if err := c.dhts[i].Close(); err != nil {
			t.Fatal(err)
		}
		h, _ := c.net.Host(i)
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
	}
	mustGetCard(t, ctx, late, "late joiner", adp.AgentID(h0.ID()), card)
}

// TestProvideOnce: a newer card with the same skills announces no
// provider record again; one with a new skill announces only that
// skill's keys, and another node finds it by the new tag.
func TestProvideOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newCluster(t, 2, p2pnet.Mocknet)
	sk, _ := c.net.Key(0)
	h0, _ := c.net.Host(0)
	d := c.dhts[0]
	if err := d.PutCard(ctx, cardtest.Signed(t, sk, 1, "alpha", "nlp/translation")); err != nil {
		t.Fatal(err)
	}
	first := d.Stats().Provides
	if first == 0 {
		t.Fatal("the first put announced no provider record")
	}
	if err := d.PutCard(ctx, cardtest.Signed(t, sk, 2, "alpha", "nlp/translation")); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.Provides != first || s.Puts != 2 {
		t.Fatalf("a newer card with the same skills: %d puts, %d provider records announced, want 2 and %d", s.Puts, s.Provides, first)
	}
	if err := d.PutCard(ctx, cardtest.Signed(t, sk, 3, "alpha", "nlp/translation", "vision/ocr")); err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().Provides - first; got != first { // vision and vision/ocr, as nlp and nlp/translation
		t.Fatalf("a new skill announced %d provider records, want %d", got, first)
	}
	ps, err := c.dhts[1].FindByTag(ctx, "vision/ocr", 10)
	if err != nil || !slices.ContainsFunc(ps, func(p peer.AddrInfo) bool { return p.ID == h0.ID() }) {
		t.Fatalf("FindByTag(vision/ocr) = %v, %v; want %s among them", ps, err, h0.ID())
	}

	// Announced with one peer in the table: once it holds three, a put
	// announces every key again.
	boot, _ := c.net.AddrInfo(1)
	for range 2 {
		idx, err := c.net.Add(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := c.net.Host(idx)
		late, err := dht.New(h, dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot))
		if err != nil {
			t.Fatal(err)
		}
		c.dhts = append(c.dhts, late)
		c.bootstrap(t, ctx, late)
	}
	polltest.For(t, 10*time.Second, "host 0's routing table holds 3 peers", func() bool { return d.RoutingTableSize() == 3 })
	before := d.Stats().Provides
	if err := d.PutCard(ctx, cardtest.Signed(t, sk, 4, "alpha", "nlp/translation", "vision/ocr")); err != nil {
		t.Fatal(err)
	}
	if got := d.Stats().Provides - before; got != 2*first {
		t.Fatalf("after the table grew from 1 to 3 peers a put announced %d keys, want all %d", got, 2*first)
	}
}

// TestRepublishSkipsFreshPut: a republish round right after a put leaves
// that card alone; once its put is half an interval old, the round puts it
// again, and a card whose put failed is put at the next round whatever its
// age.
func TestRepublishSkipsFreshPut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newCluster(t, 2, p2pnet.Mocknet, dht.RepublishInterval(time.Hour))
	sk, _ := c.net.Key(0)
	h0, _ := c.net.Host(0)
	card := cardtest.Signed(t, sk, 1, "alpha", "nlp")
	d := c.dhts[0]
	if err := d.PutCard(ctx, card); err != nil {
		t.Fatal(err)
	}
	d.RepublishNow()
	if s := d.Stats(); s.Republished != 0 || s.RepublishFailed != 0 {
		t.Fatalf("a round right after the put: %+v, want no republication", s)
	}
	d.AgePut(adp.AgentID(h0.ID()), 30*time.Minute)
	d.RepublishNow()
	if s := d.Stats(); s.Republished != 1 {
		t.Fatalf("a round half an interval after the put: %d republished, want 1", s.Republished)
	}
	// A newer card whose provider keys were announced lately (the same
	// skills, by the round just run) is put without them: it is left
	// unstamped, and the next round puts it and announces them; the round
	// after that, right behind, leaves it alone.
	newer := cardtest.Signed(t, sk, 2, "alpha", "nlp")
	if err := d.PutCard(ctx, newer); err != nil {
		t.Fatal(err)
	}
	d.RepublishNow()
	if s := d.Stats(); s.Republished != 2 {
		t.Fatalf("a round after a put that announced no key: %d republished, want 2", s.Republished)
	}
	d.RepublishNow()
	if s := d.Stats(); s.Republished != 2 {
		t.Fatalf("a round right after a republication: %d republished, want 2", s.Republished)
	}

	// A put that fails (its context is over) is remembered unstamped: the
	// next round puts it.
	done, stop := context.WithCancel(ctx)
	stop()
	newest := cardtest.Signed(t, sk, 3, "alpha", "nlp")
	if err := d.PutCard(done, newest); err == nil {
		t.Fatal("a put with a cancelled context succeeded")
	}
	d.RepublishNow()
	if s := d.Stats(); s.Republished != 3 {
		t.Fatalf("a round after a failed put of a newer card: %d republished, want 3", s.Republished)
	}
}
