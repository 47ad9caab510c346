package gossip

import (
	"context"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/p2pnet"
)

// BenchmarkValidate measures the topic validator on a typical signed card
// (one that is accepted), against the baseline of adp.DecodeVerified alone:
// the ratio is what the ownership and freshness checks add.
func BenchmarkValidate(b *testing.B) {
	nw, err := p2pnet.New(context.Background(), 2)
	if err != nil {
		b.Fatal(err)
	}
	defer nw.Close()
	hosts := nw.Hosts()
	g, err := New(hosts[0])
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	sk, _ := nw.Key(1)
	seq := uint64(1)
	c := &adp.Card{
		Name: "translator", Description: "Translates legal contracts between English and German.",
		Version: "1.2.0", Skills: []string{"nlp/translation", "legal/contracts"}, Seq: &seq,
		Metadata: &adp.Metadata{UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)},
	}
	if err := c.Sign(sk); err != nil {
		b.Fatal(err)
	}
	raw := c.Raw()
	from := []byte(hosts[1].ID())
	var base, full time.Duration
	b.Run("decode-verified", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			if _, err := adp.DecodeVerified(raw); err != nil {
				b.Fatal(err)
			}
		}
		base = time.Since(start) / time.Duration(b.N)
	})
	b.Run("validator", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			g.recent = newRecent(time.Now)            // every message is news
			g.cfg.check = adp.NewChecker(maxVerified) // and its bytes never seen
			msg := &pubsub.Message{Message: &pb.Message{Data: raw, From: from}}
			if res, reason, _ := g.check(hosts[1].ID(), msg); res != pubsub.ValidationAccept {
				b.Fatalf("rejected: %s", reason)
			}
		}
		full = time.Since(start) / time.Duration(b.N)
		if base > 0 {
			b.ReportMetric(float64(full)/float64(base), "x-decode-verified")
		}
	})
}

// countingLimiter admits the first n messages of every peer.
type countingLimiter struct {
	n    int
	seen map[peer.ID]int
}

func (l *countingLimiter) AllowPeer(p peer.ID, _ ma.Multiaddr) (bool, time.Duration) {
	l.seen[p]++
	return l.seen[p] <= l.n, time.Second
}

// TestValidateRateStep: step 0 Ignores (never Rejects) a relay beyond its
// rate, before the card is parsed, and never limits the node's own
// publications.
func TestValidateRateStep(t *testing.T) {
	nw, err := p2pnet.New(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	hosts := nw.Hosts()
	lim := &countingLimiter{n: 2, seen: map[peer.ID]int{}}
	g, err := New(hosts[0], WithLimiter(lim))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	from := hosts[1].ID()
	garbage := &pubsub.Message{Message: &pb.Message{Data: []byte("not a card"), From: []byte(from)}}
	for i := range 2 {
		if res, reason, _ := g.check(from, garbage); res != pubsub.ValidationReject || reason != ReasonMalformed {
			t.Fatalf("message %d within the rate: %v %s, want Reject malformed", i, res, reason)
		}
	}
	if res, reason, _ := g.check(from, garbage); res != pubsub.ValidationIgnore || reason != ReasonRateLimited {
		t.Fatalf("beyond the rate: %v %s, want Ignore rate_limited before parsing", res, reason)
	}
	own := &pubsub.Message{Message: &pb.Message{Data: []byte("x"), From: []byte(hosts[0].ID())}}
	for range 5 {
		if _, reason, _ := g.check(hosts[0].ID(), own); reason == ReasonRateLimited {
			t.Fatal("the node's own publication was rate limited")
		}
	}
	if lim.seen[hosts[0].ID()] != 0 {
		t.Fatal("the limiter was asked about the node's own publications")
	}
}
