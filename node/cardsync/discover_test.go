package cardsync_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/discovery"
)

// serveDiscover starts a host answering adp.discover with h, and returns
// a client of another host connected to it.
func serveDiscover(t *testing.T, h aitp.HandlerFunc) (*aitp.Client, peer.ID) {
	t.Helper()
	newHost := func() host.Host {
		sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := p2phost.New(sk)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { hs.Close() })
		return hs
	}
	server, caller := newHost(), newHost()
	srv, err := aitp.NewServer(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.HandleFunc(service.MethodDiscover, h)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := caller.Connect(ctx, peer.AddrInfo{ID: server.ID(), Addrs: server.Addrs()}); err != nil {
		t.Fatal(err)
	}
	cl := aitp.NewClient(caller)
	t.Cleanup(func() { cl.Close() })
	return cl, server.ID()
}

func fetchIDs(t *testing.T, f cardsync.Fetch, p peer.ID) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := f(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range l {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestDiscoverSendsKnown: a sync's request names the cards the node holds,
// and a peer running the node's own discovery answers with the others
// only.
func TestDiscoverSendsKnown(t *testing.T) {
	d, err := discovery.New()
	if err != nil {
		t.Fatal(err)
	}
	var cards []*adp.Card
	for range 5 {
		c := newAgent(t).card(t, 1)
		cards = append(cards, c)
		if err := d.Put(c, time.Now(), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var served atomic.Int64
	sv := service.New(service.CardSourceFunc(func() *adp.Card { return cards[0] }), service.WithDiscoverer(d))
	cl, p := serveDiscover(t, func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		served.Add(1)
		return sv.ServeDiscover(ctx, w, r)
	})
	idsOf := func(cs []*adp.Card) []string {
		var ids []string
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
		slices.Sort(ids)
		return ids
	}

	if got := fetchIDs(t, cardsync.Discover(cl, nil), p); !slices.Equal(got, idsOf(cards)) {
		t.Fatalf("without a known list: %v, want every card %v", got, idsOf(cards))
	}
	held := func() []string {
		return []string{adp.CardDigest(cards[0].Raw()), adp.CardDigest(cards[2].Raw()), adp.CardDigest(cards[4].Raw())}
	}
	if got := fetchIDs(t, cardsync.Discover(cl, held), p); !slices.Equal(got, idsOf([]*adp.Card{cards[1], cards[3]})) {
		t.Fatalf("holding cards 0, 2 and 4: %v, want %v", got, idsOf([]*adp.Card{cards[1], cards[3]}))
	}
	every := func() []string { return d.Digests(adp.MaxKnownCards, "") }
	if got := fetchIDs(t, cardsync.Discover(cl, every), p); len(got) != 0 {
		t.Fatalf("holding every card: %v, want none", got)
	}
	if n := served.Load(); n != 3 {
		t.Fatalf("%d requests served, want 3 (no retry)", n)
	}
}

// TestDiscoverRetriesWithoutKnown: a peer that refuses the known list (as
// releases before it, which refuse every field they do not know) is asked
// again without it; any other refusal is the sync's error.
func TestDiscoverRetriesWithoutKnown(t *testing.T) {
	c := newAgent(t).card(t, 1)
	var calls, withKnown atomic.Int64
	var refuse atomic.Pointer[string]
	path := "/known"
	refuse.Store(&path)
	cl, p := serveDiscover(t, func(_ context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		calls.Add(1)
		if bytes.Contains(r.Body, []byte(`"known"`)) {
			withKnown.Add(1)
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, *refuse.Load(), "unknown field")
		}
		b, err := json.Marshal(adp.DiscoverResponse{Results: []adp.DiscoverResult{{ID: c.ID, AgentCard: c.Raw()}}})
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	known := func() []string { return []string{adp.CardDigest([]byte("a card held"))} }
	if got := fetchIDs(t, cardsync.Discover(cl, known), p); !slices.Equal(got, []string{c.ID}) {
		t.Fatalf("from a peer refusing the known list: %v, want [%s]", got, c.ID)
	}
	if calls.Load() != 2 || withKnown.Load() != 1 {
		t.Fatalf("%d calls, %d with the known list: want 2 and 1", calls.Load(), withKnown.Load())
	}
	// No known list to send: one call.
	if got := fetchIDs(t, cardsync.Discover(cl, func() []string { return nil }), p); len(got) != 1 || calls.Load() != 3 {
		t.Fatalf("empty known list: %v after %d calls", got, calls.Load())
	}
	// A refusal of another field is not retried.
	other := "/limit"
	refuse.Store(&other)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cardsync.Discover(cl, known)(ctx, p); err == nil || calls.Load() != 4 {
		t.Fatalf("refusal at /limit: err %v after %d calls, want an error after 4", err, calls.Load())
	}
}
