package discovery_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
)

// BenchmarkSyncAnswer answers a card sync's request (every card, full
// detail, the largest limit) from 100 held cards: with no known list (the
// baseline: every card again), with the digests of all of them (a peer
// that holds what the caller holds), and of all but 5. It reports the
// request's and the reply's octets beside the time to rank and encode:
//
//	go test -run '^$' -bench BenchmarkSyncAnswer ./node/discovery
func BenchmarkSyncAnswer(b *testing.B) {
	d, err := discovery.New(discovery.WithClock(func() time.Time { return discoNow }))
	if err != nil {
		b.Fatal(err)
	}
	var digests []string
	for key := range 100 {
		c := cardtest.Card(b, byte(key+1), translatorCard)
		if err := d.Put(c, discoNow, time.Time{}); err != nil {
			b.Fatal(err)
		}
		digests = append(digests, adp.CardDigest(c.Raw()))
	}
	for _, bc := range []struct {
		name  string
		known []string
		want  int
	}{
		{"known=none", nil, 100},
		{"known=all", digests, 0},
		{"known=all-but-5", digests[5:], 5},
	} {
		b.Run(bc.name, func(b *testing.B) {
			anyScore := 0.0
			body, err := json.Marshal(&adp.DiscoverRequest{Limit: adp.MaxDiscoverLimit, MinScore: &anyScore, Detail: adp.DetailFull, Known: bc.known})
			if err != nil {
				b.Fatal(err)
			}
			var reply []byte
			for b.Loop() {
				req, err := adp.ParseDiscoverRequest(body)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := d.Discover(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if len(resp.Results) != bc.want {
					b.Fatalf("%d results, want %d", len(resp.Results), bc.want)
				}
				if reply, err = resp.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(body)), "request-B")
			b.ReportMetric(float64(len(reply)), "reply-B")
		})
	}
}
