package store_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// fakeClock is a settable clock for WithClock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testLogger sends the store's log to t.Log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// openStore opens a store in dir (a new temporary one when empty) with
// small memory, no background sweeper and the test logger, closing it at
// the end of the test.
func openStore(t testing.TB, dir string, opts ...store.Option) *store.Store {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	return openWith(t, dir, opts)
}

// openWith opens a store in dir (which may be "" for an in-memory one) as
// openStore does, closing it at the end of the test.
func openWith(t testing.TB, dir string, opts []store.Option) *store.Store {
	t.Helper()
	base := []store.Option{store.WithSmallMemory(), store.WithSweepInterval(0), store.WithLogger(testLogger(t))}
	s, err := store.Open(dir, append(base, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func newKey(t testing.TB) crypto.PrivKey {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// cardSpec describes a test card.
type cardSpec struct {
	seq       uint64 // 0: absent
	updatedAt string
	ttl       int64 // seconds; 0: absent
	revoke    bool
	unsigned  bool
	name      string
	padding   int // bytes of description beyond the default one
}

// makeCard builds a valid card of sk's agent, signed unless spec.unsigned.
func makeCard(t testing.TB, sk crypto.PrivKey, spec cardSpec) *adp.Card {
	t.Helper()
	c, err := buildCard(sk, spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// buildCard is makeCard without a testing.TB, for the crash child.
func buildCard(sk crypto.PrivKey, spec cardSpec) (*adp.Card, error) {
	name := spec.name
	if name == "" {
		name = "translator"
	}
	c := &adp.Card{
		Name:        name,
		Description: "Translates text between languages." + strings.Repeat(" more", spec.padding/5),
		Version:     "1.0.0",
		Skills:      []string{"nlp/translation"},
		Tools:       []adp.Tool{{Name: "translate", Description: "Translate a text."}},
		Endpoints:   []adp.Endpoint{{Protocol: "aitp", URI: "agent://example"}},
	}
	if spec.seq != 0 {
		seq := spec.seq
		c.Seq = &seq
	}
	if spec.updatedAt != "" || spec.ttl != 0 {
		c.Metadata = &adp.Metadata{UpdatedAt: spec.updatedAt}
		if spec.ttl != 0 {
			ttl := spec.ttl
			c.Metadata.TTL = &ttl
		}
	}
	if spec.revoke {
		c.Tools, c.Endpoints = []adp.Tool{}, []adp.Endpoint{}
	}
	if err := c.Sign(sk); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if spec.unsigned {
		// Re-parse without the signature: an unsigned card with raw bytes.
		c.Signature = ""
		raw, err := c.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return adp.ParseCard(raw)
	}
	return c, nil
}

// put stores c and fails the test on error.
func put(t testing.TB, s *store.Store, c *adp.Card, src store.Source) bool {
	t.Helper()
	ok, err := s.PutCard(context.Background(), c, src, "test")
	if err != nil {
		t.Fatalf("PutCard: %v", err)
	}
	return ok
}

// openMem opens an in-memory store, closed at the end of the test.
func openMem(t testing.TB, opts ...store.Option) *store.Store {
	t.Helper()
	return openWith(t, "", append([]store.Option{store.WithInMemory()}, opts...))
}

// newPeer returns the peer ID of a fresh Ed25519 key.
func newPeer(t testing.TB) peer.ID {
	t.Helper()
	p, err := peer.IDFromPrivateKey(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cryptoKey() (crypto.PrivKey, crypto.PubKey, error) {
	return crypto.GenerateEd25519Key(rand.Reader)
}
