package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// BenchmarkInvokeMCP compares, in one run, a tool call (echo, 100-byte
// text) to an agent behind --agent-mcp-command (the mcptest server as a
// stdio subprocess) with the same call to an agent behind --agent-url
// (an HTTP server doing the same echo), between two nodes on loopback
// TCP. It reports the p50 and p99 latency of each, in microseconds.
func BenchmarkInvokeMCP(b *testing.B) {
	cmd := mcptestCommand(b)
	httpAgent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text string `json:"text"`
		}
		if r.URL.Path != "/echo" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"content": []any{map[string]string{"type": "text", "text": in.Text}}, "structuredContent": in})
	}))
	b.Cleanup(httpAgent.Close)
	viaMCP := startNode(b, testNode{name: "mcp agent", agentMCPCommand: cmd})
	viaHTTP := startNode(b, testNode{name: "http agent", agentURL: httpAgent.URL, bootstrap: []string{addrOf(b, viaMCP)},
		tools: viaMCP.Card().Tools})
	caller := startNode(b, testNode{name: "caller", bootstrap: []string{addrOf(b, viaMCP)}})
	polltest.For(b, 20*time.Second, "the caller holds both cards", func() bool { return caller.CardCount() == 3 })
	body := []byte(`{"text":"` + strings.Repeat("x", 100) + `"}`)
	ctx := context.Background()
	call := func(id string) time.Duration {
		start := time.Now()
		res, err := caller.Invoke(ctx, id, "echo", body)
		if err != nil || !strings.Contains(string(res.Body), "xxxx") {
			b.Fatalf("echo on %s: %v %v", id, err, res)
		}
		return time.Since(start)
	}
	call(viaMCP.AgentID()) // warm both paths up
	call(viaHTTP.AgentID())
	mcpLat := make([]time.Duration, 0, b.N)
	httpLat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		mcpLat = append(mcpLat, call(viaMCP.AgentID()))
		httpLat = append(httpLat, call(viaHTTP.AgentID()))
	}
	b.StopTimer()
	for _, s := range []struct {
		name string
		lat  []time.Duration
	}{{"mcp", mcpLat}, {"http", httpLat}} {
		slices.Sort(s.lat)
		b.ReportMetric(float64(s.lat[len(s.lat)/2].Microseconds()), s.name+"-p50-µs")
		b.ReportMetric(float64(s.lat[(len(s.lat)*99)/100].Microseconds()), s.name+"-p99-µs")
	}
	b.ReportMetric(0, "ns/op") // the pair of calls per op is not a useful number
}

// mcptestCommand is the command line of the test binary as a stdio MCP
// server (see TestMain).
func mcptestCommand(tb testing.TB) string {
	tb.Helper()
	cmd, err := mcptest.Command()
	if err != nil {
		tb.Fatal(err)
	}
	return cmd
}
