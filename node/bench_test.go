package node_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/demoagent"
)

// BenchmarkInvoke measures a tool call (demo echo, 100-byte body) between
// two nodes on loopback TCP: directly through Node.Invoke (the baseline)
// and through the caller's HTTP API, and reports the API's cost as a ratio.
func BenchmarkInvoke(b *testing.B) {
	callee := startNode(b, testNode{name: "callee", demo: true})
	caller := startNode(b, testNode{name: "caller", bootstrap: []string{addrOf(b, callee)}})
	polltest.For(b, 20*time.Second, "the caller holds the callee's card", func() bool { return caller.CardCount() == 2 })
	body := []byte(`{"text":"` + strings.Repeat("x", 88) + `"}`)
	ctx := context.Background()
	direct := func(n int) time.Duration {
		start := time.Now()
		for range n {
			if _, err := caller.Invoke(ctx, callee.AgentID(), demoagent.Echo, body); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	reqBody := fmt.Sprintf(`{"agent":%q,"method":"echo","body":%s}`, callee.AgentID(), body)
	client := &http.Client{}
	viaAPI := func(n int) time.Duration {
		start := time.Now()
		for range n {
			resp, err := client.Post(caller.APIURL()+"/v1/invoke", "application/json", strings.NewReader(reqBody))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
		return time.Since(start)
	}
	direct(100) // warm up the association and the HTTP connection
	viaAPI(100)
	b.ResetTimer()
	d := direct(b.N)
	a := viaAPI(b.N)
	b.StopTimer()
	b.ReportMetric(float64(d.Microseconds())/float64(b.N), "direct-µs/call")
	b.ReportMetric(float64(a.Microseconds())/float64(b.N), "api-µs/call")
	b.ReportMetric(float64(a)/float64(d), "api/direct")
}

// BenchmarkDiscover ranks 200 held cards for a text and tag query: the
// Node's Discover (baseline) against POST /v1/discover on the same node.
func BenchmarkDiscover(b *testing.B) {
	n := startNode(b, testNode{name: "holder"})
	for i := range 200 {
		sk, _, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			b.Fatal(err)
		}
		c := &adp.Card{Name: fmt.Sprintf("agent %d", i), Description: fmt.Sprintf("Handles %s tasks number %d", topics[i%len(topics)], i), Skills: []string{topics[i%len(topics)]}}
		if err := c.Sign(sk); err != nil {
			b.Fatal(err)
		}
		if _, err := n.ImportCard(context.Background(), c); err != nil {
			b.Fatal(err)
		}
	}
	polltest.For(b, 10*time.Second, "the index holds 201 cards", func() bool {
		r := discoverAPI(b, n, "local", `{"tags":["nlp/translation"],"limit":100,"min_score":0}`)
		return len(r.Results) >= 200/len(topics)
	})
	const q = `{"tags":["nlp/translation"],"query":"translate a legal contract","limit":10}`
	req, err := adp.ParseDiscoverRequest([]byte(q))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := n.Discover(ctx, req, "local"); err != nil {
			b.Fatal(err)
		}
	}
	d := time.Since(start)
	start = time.Now()
	for range b.N {
		resp, err := http.Post(n.APIURL()+"/v1/discover", "application/json", strings.NewReader(q))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	a := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(d.Microseconds())/float64(b.N), "direct-µs/op")
	b.ReportMetric(float64(a.Microseconds())/float64(b.N), "api-µs/op")
	b.ReportMetric(float64(a)/float64(d), "api/direct")
}

var topics = []string{"nlp/translation", "vision/ocr", "finance/invoicing", "code/review", "audio/transcription"}
