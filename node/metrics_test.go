package node_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/adpnode/adpnode/node"
)

// TestMetricsIncludeAITP: the node registers aitp's server and client
// metrics on its own registry, so after a call the caller's /metrics
// counts it among aitp_client_calls_total and the callee's among
// aitp_server_requests_total.
func TestMetricsIncludeAITP(t *testing.T) {
	a := startNode(t, testNode{name: "callee", demo: true})
	b := startNode(t, testNode{name: "caller", bootstrap: []string{addrOf(t, a)}})
	if _, err := b.CallPeer(context.Background(), a.PeerID(), node.DemoEcho, []byte(`{"x":1}`)); err != nil {
		t.Fatalf("call: %v", err)
	}
	for _, tc := range []struct {
		n      *node.Node
		series string
	}{
		{b, `aitp_client_calls_total{outcome="OK"}`},
		{a, `aitp_server_requests_total{status="OK"}`},
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
