package node_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
)

// TestMetricsIncludeAITP: the node registers aitp's server and client
// metrics on its own registry, so after a call the caller's /metrics
// counts it among aitp_client_calls_total and the callee's among
// aitp_server_requests_total.
func TestMetricsIncludeAITP(t *testing.T) {
	a := startNode(t, testNode{name: "callee", demo: true})
	b := startNode(t, testNode{name: "caller", bootstrap: []string{addrOf(t, a)}})
	if _, err := b.CallPeer(context.Background(), a.PeerID(), demoagent.Echo, []byte(`{"x":1}`)); err != nil {
		t.Fatalf("call: %v", err)
	}
	for _, tc := range []struct {
		n      *node.Node
		series string
	}{
		{b, `aitp_client_calls_total{outcome="OK"}`},
		{a, `aitp_server_requests_total{method="echo",status="OK"}`},
		{a, `aitp_server_streams`},
	} {
		code, body := api(t, tc.n, "GET", "/metrics", "")
		if code != 200 {
			t.Fatalf("metrics: %d", code)
		}
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tc.series) + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			t.Errorf("metrics lack %s", tc.series)
			continue
		}
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || (tc.series != "aitp_server_streams" && v < 1) {
			t.Errorf("%s = %s, want at least 1", tc.series, m[1])
		}
	}
}

// seriesOf counts the series of a metric in n's /metrics.
func seriesOf(t *testing.T, n *node.Node, metric string) int {
	t.Helper()
	code, body := api(t, n, "GET", "/metrics", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	return strings.Count(body, "\n"+metric+"{")
}

// TestCallMetricsMethodsClosed: invoking made-up methods counts them as
// "other" on the caller and never reaches a per-method series on the
// callee; a tool the callee's card lists keeps its name.
func TestCallMetricsMethodsClosed(t *testing.T) {
	a := startNode(t, testNode{name: "Caller"})
	b := startNode(t, testNode{name: "Text toolbox", demo: true, bootstrap: []string{addrOf(t, a)}})
	waitAllCards(t, []*node.Node{a, b})
	ctx := context.Background()
	if _, err := a.Invoke(ctx, b.AgentID(), "wordcount", []byte(`{"text":"a b"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Invoke(ctx, b.AgentID(), "made-up", nil); err == nil {
		t.Fatal("a made-up method answered")
	}
	calls, served := seriesOf(t, a, "adpnode_calls_total"), seriesOf(t, b, "adpnode_tool_calls_served_total")

	const n = 1000
	var buf [12]byte
	for range n {
		rand.Read(buf[:])
		_, err := a.Invoke(ctx, b.AgentID(), "m-"+hex.EncodeToString(buf[:]), nil)
		if st, ok := aitp.StatusOf(err); !ok || st != aitp.StatusNotFound {
			t.Fatalf("made-up method: %v, want NOT_FOUND", err)
		}
	}
	if got := seriesOf(t, a, "adpnode_calls_total"); got != calls {
		t.Fatalf("caller: %d adpnode_calls_total series after %d made-up methods, %d before", got, n, calls)
	}
	if got := seriesOf(t, b, "adpnode_tool_calls_served_total"); got != served {
		t.Fatalf("callee: %d served series after %d made-up methods, %d before", got, n, served)
	}
	_, body := api(t, a, "GET", "/metrics", "")
	for _, want := range []string{`adpnode_calls_total{method="wordcount",status="OK"} 1`, `adpnode_calls_total{method="other",status="NOT_FOUND"} 1001`} {
		if !strings.Contains(body, want) {
			t.Errorf("caller's metrics lack %s", want)
		}
	}
}
