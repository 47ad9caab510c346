package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestDiscoverFlags: the filter flags go into the request the node
// receives, and the table shows the tags matched through expansion.
func TestDiscoverFlags(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = nil
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("request %s: %v", b, err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"results": [{"id": "agent://a", "name": "A", "score": 0.5, "matched_tags": ["nlp"], "expanded_tags": ["py"], "probe": {"ok": true, "rtt_ms": 1.25, "free_capacity": 2}}]}`))
	}))
	t.Cleanup(srv.Close)
	out, _, err := runCLI(t, "", "discover", "--query", "ocr", "--min-score", "0.2", "--relevance-floor", "0",
		"--required-tags", "vision,nlp", "--excluded-tags", "audio", "--protocols", "aitp", "--api-url", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"query": "ocr", "min_score": 0.2, "constraints": map[string]any{"relevance_floor": 0.0},
		"required_tags": []any{"vision", "nlp"}, "excluded_tags": []any{"audio"}, "protocols": []any{"aitp"}, "probe": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("request %v, want %v", got, want)
	}
	if !strings.Contains(out, "nlp,~py") || !strings.Contains(out, "1.2ms free=2") {
		t.Fatalf("expanded tag or probe not shown:\n%s", out)
	}
	// Unset, the flags send nothing; --probe=false turns probing off.
	if _, _, err := runCLI(t, "", "discover", "--query", "ocr", "--probe=false", "--api-url", srv.URL); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]any{"query": "ocr"}) {
		t.Fatalf("request %v", got)
	}
}
