package dht_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// cluster is a p2pnet network with a DHT server on every host,
// bootstrapped from host 0.
type cluster struct {
	net   *p2pnet.Network
	dhts  []*dht.DHT
	sinks []*sink // OnCard of each DHT
}

// sink records the cards a DHT hands to OnCard.
type sink struct {
	mu    sync.Mutex
	cards []*adp.Card
}

func (s *sink) add(c *adp.Card) {
	s.mu.Lock()
	s.cards = append(s.cards, c)
	s.mu.Unlock()
}

// count returns how many cards with these bytes the sink saw.
func (s *sink) count(raw []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.cards {
		if bytes.Equal(c.Raw(), raw) {
			n++
		}
	}
	return n
}

func (s *sink) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cards)
}

func newCluster(t testing.TB, n int, tr p2pnet.Transport, opts ...dht.Option) *cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nw, err := p2pnet.New(ctx, n, p2pnet.WithTransport(tr), p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{net: nw}
	t.Cleanup(func() {
		for _, d := range c.dhts {
			if err := d.Close(); err != nil {
				t.Errorf("close dht: %v", err)
			}
		}
		if err := nw.Close(); err != nil {
			t.Errorf("close network: %v", err)
		}
	})
	boot, _ := nw.AddrInfo(0)
	for _, h := range nw.Hosts() {
		s := &sink{}
		d, err := dht.New(h, append([]dht.Option{dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot), dht.OnCard(s.add)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		c.dhts = append(c.dhts, d)
		c.sinks = append(c.sinks, s)
	}
	c.bootstrap(t, ctx, c.dhts[1:]...)
	polltest.For(t, 10*time.Second, "every routing table has a peer", func() bool {
		for _, d := range c.dhts {
			if d.RoutingTableSize() == 0 {
				return false
			}
		}
		return true
	})
	return c
}

func (c *cluster) bootstrap(t testing.TB, ctx context.Context, ds ...*dht.DHT) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(ds))
	for i, d := range ds {
		wg.Go(func() { errs[i] = d.Bootstrap(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestPutGetFind(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, 10, p2pnet.Mocknet)

	owner := 3
	sk, _ := c.net.Key(owner)
	h, _ := c.net.Host(owner)
	agent := adp.AgentID(h.ID())
	v1 := cardtest.Signed(t, sk, 1, "translator", "nlp/translation", "Legal/Contracts")
	if err := c.dhts[owner].PutCard(ctx, v1); err != nil {
		t.Fatalf("PutCard: %v", err)
	}

	// Every other node stored the card (ten nodes are all among the 20
	// closest) and handed it to its sink.
	polltest.For(t, 10*time.Second, "put cards reach every sink", func() bool {
		for i, s := range c.sinks {
			if i != owner && s.count(v1.Raw()) != 1 {
				return false
			}
		}
		return true
	})
	if n := c.sinks[owner].len(); n != 0 {
		t.Fatalf("owner's sink saw %d cards", n)
	}

	// Any node gets the card by id, and its sink sees it again.
	mustGetCard(t, ctx, c.dhts[9], "v1", agent, v1)
	if n := c.sinks[9].count(v1.Raw()); n != 2 {
		t.Fatalf("node 9's sink saw the card %d times, want 2 (put, get)", n)
	}

	// Finding by tag reaches the agent through the tag and its parents,
	// under any spelling that normalizes alike.
	for _, tag := range []string{"nlp", "nlp/translation", " NLP//Translation ", "legal/contracts", "legal"} {
		ps, err := c.dhts[7].FindByTag(ctx, tag, 10)
		if err != nil {
			t.Fatalf("FindByTag(%q): %v", tag, err)
		}
		if !slices.ContainsFunc(ps, func(ai peer.AddrInfo) bool { return ai.ID == h.ID() }) {
			t.Fatalf("FindByTag(%q) = %v, want %s among them", tag, ps, h.ID())
		}
	}
	ps, err := c.dhts[7].FindByTag(ctx, "vision", 10)
	if err != nil || len(ps) != 0 {
		t.Fatalf("FindByTag(vision) = %v, %v; want none", ps, err)
	}
	// "contracts" alone is not a parent path of "legal/contracts" (and,
	// unlike "translation", no standard leaf the taxonomy expands).
	ps, err = c.dhts[7].FindByTag(ctx, "contracts", 10)
	if err != nil || len(ps) != 0 {
		t.Fatalf("FindByTag(contracts) = %v, %v; want none", ps, err)
	}

	// A newer card replaces the old one everywhere; the older one can no
	// longer be put.
	v2 := cardtest.Signed(t, sk, 2, "translator v2", "nlp/translation")
	if err := c.dhts[owner].PutCard(ctx, v2); err != nil {
		t.Fatalf("PutCard v2: %v", err)
	}
	mustGetCard(t, ctx, c.dhts[5], "after update", agent, v2)
	mustGetCard(t, ctx, c.dhts[6], "after update, quorum 1", agent, v2, dht.Quorum(1))
	if err := c.dhts[owner].PutCard(ctx, v1); !errors.Is(err, dht.ErrOlder) {
		t.Fatalf("PutCard(older) = %v, want ErrOlder", err)
	}
	// Another node, which never put v2, is refused by its own store.
	if err := c.dhts[5].PutCard(ctx, v1); err == nil {
		t.Fatal("PutCard of an older card succeeded on a node holding the newer one")
	}

	// An agent nobody published is not found.
	stranger, _ := peer.IDFromPrivateKey(newKey(t))
	if _, err := c.dhts[2].GetCard(ctx, adp.AgentID(stranger)); !errors.Is(err, dht.ErrNotFound) || !errors.Is(err, adp.ErrNotFound) {
		t.Fatalf("GetCard(stranger) = %v, want ErrNotFound", err)
	}
	if s := c.dhts[2].Stats(); s.GetMisses != 1 {
		t.Fatalf("stats %+v, want one miss", s)
	}
}

func TestPutCardRejectsBadCards(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := newCluster(t, 2, p2pnet.Mocknet)
	sk := newKey(t)
	good := cardtest.Signed(t, sk, 1, "alpha")
	forged, err := adp.ParseCard(cardtest.Tamper(t, good.Raw(), "alpha", "alphb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.dhts[0].PutCard(ctx, forged); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("PutCard(forged) = %v, want ErrBadSignature", err)
	}
	if err := c.dhts[0].PutCard(ctx, &adp.Card{Name: "unsigned"}); !errors.Is(err, adp.ErrUnsigned) {
		t.Fatalf("PutCard(unsigned) = %v, want ErrUnsigned", err)
	}
	if s := c.dhts[0].Stats(); s.Puts != 0 {
		t.Fatalf("stats %+v after rejected puts", s)
	}
}

func TestCloseIdempotent(t *testing.T) {
	c := newCluster(t, 2, p2pnet.Mocknet)
	d := c.dhts[1]
	h0, _ := c.net.Host(0)
	if err := d.Ping(context.Background(), h0.ID()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := d.GetCard(context.Background(), "agent://x"); !errors.Is(err, dht.ErrClosed) {
		t.Fatalf("GetCard after Close = %v, want ErrClosed", err)
	}
	if err := d.Ping(context.Background(), h0.ID()); !errors.Is(err, dht.ErrClosed) {
		t.Fatalf("Ping after Close = %v, want ErrClosed", err)
	}
}

func TestOptions(t *testing.T) {
	nw, err := p2pnet.New(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	h, _ := nw.Host(0)
	for name, o := range map[string]dht.Option{
		"mode":           dht.Mode(7),
		"republish":      dht.RepublishInterval(time.Millisecond),
		"republish long": dht.RepublishInterval(dht.MaxRepublishInterval + time.Second),
		"logger":         dht.Logger(nil),
		"taxonomy":       dht.Taxonomy(nil),
		"quorum":         dht.GetQuorum(-1),
	} {
		if _, err := dht.New(h, o); !errors.Is(err, dht.ErrBadOption) {
			t.Errorf("%s: New = %v, want ErrBadOption", name, err)
		}
	}
}

// TestNoAutoRefreshBootstraps: without kad-dht's own refreshes, a DHT
// still fills its routing table from its connections, Bootstrap still
// refreshes it on demand, and a card put on one node is found from the
// other end of a line of nodes.
func TestNoAutoRefreshBootstraps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 5
	nw, err := p2pnet.New(ctx, n, p2pnet.WithTopology(p2pnet.Ring))
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	var ds []*dht.DHT
	defer func() {
		for _, d := range ds {
			d.Close()
		}
	}()
	for i := range n {
		h, _ := nw.Host(i)
		d, err := dht.New(h, dht.Mode(dht.ModeServer), dht.NoAutoRefresh())
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	for i, d := range ds {
		if err := d.Bootstrap(ctx); err != nil {
			t.Fatalf("node %d: Bootstrap: %v", i, err)
		}
	}
	sk, _ := nw.Key(0)
	h0, _ := nw.Host(0)
	card := cardtest.Signed(t, sk, 1, "line")
	if err := ds[0].PutCard(ctx, card); err != nil {
		t.Fatalf("PutCard: %v", err)
	}
	mustGetCard(t, ctx, ds[n/2], "middle of the line", adp.AgentID(h0.ID()), card)
}

// TestFindByCanonicalTag announces skills in non-canonical spellings and
// finds them from another node under every spelling the taxonomy
// (adp/tag) maps to the same canonical form, which is the provider key.
func TestFindByCanonicalTag(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newCluster(t, 5, p2pnet.Mocknet)

	owner := 2
	sk, _ := c.net.Key(owner)
	h, _ := c.net.Host(owner)
	if err := c.dhts[owner].PutCard(ctx, cardtest.Signed(t, sk, 1, "analyst", "Text_Analysis", "py")); err != nil {
		t.Fatalf("PutCard: %v", err)
	}
	for _, q := range []string{"text-analysis", "Text_Analysis", "text analysis", "python", "py", "Python", "coding/python", "coding"} {
		ps, err := c.dhts[4].FindByTag(ctx, q, 10)
		if err != nil {
			t.Fatalf("FindByTag(%q): %v", q, err)
		}
		if !slices.ContainsFunc(ps, func(ai peer.AddrInfo) bool { return ai.ID == h.ID() }) {
			t.Fatalf("FindByTag(%q) = %v, want %s among them", q, ps, h.ID())
		}
	}
	// A sibling under the same parent is not found.
	ps, err := c.dhts[4].FindByTag(ctx, "coding/javascript", 10)
	if err != nil || len(ps) != 0 {
		t.Fatalf("FindByTag(coding/javascript) = %v, %v; want none", ps, err)
	}
}
