package gossip

import (
	"context"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"

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
