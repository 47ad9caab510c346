package publichttp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/publichttp"
)

// countingSource is an aicatalog.Source that counts its discoveries.
type countingSource struct{ calls int }

func (s *countingSource) Discover(context.Context, *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	s.calls++
	return &adp.DiscoverResponse{}, nil
}

func (s *countingSource) Origin(string) aicatalog.Origin {
	return aicatalog.Origin{Provenance: "gossip", Signed: true}
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestCatalogRoutes: with WithCatalog the server answers the manifest and
// POST /search, the one search charged to the discovery budget; other
// POSTs stay refused, bad bodies are refused before any discovery.
func TestCatalogRoutes(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	big := ratelimit.Rate{PerSecond: 1000, Burst: 1000}
	src := &countingSource{}
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{Name: "dir"} }, []aicatalog.Source{src})
	url := serve(t, newFake(t), publichttp.WithCatalog(h), publichttp.WithClock(func() time.Time { return now }),
		publichttp.WithLimits(ratelimit.Config{Peer: big, Network: big}, ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 1, Burst: 3}, Network: big}))

	if resp, body := fetch(t, nil, "GET", url+aicatalog.WellKnownPath); resp.StatusCode != 200 || !strings.Contains(body, aicatalog.MediaRegistry) ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("manifest: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	for _, tc := range []struct{ body, path string }{
		{`{"query":{}}`, `"path":"/query/text"`},
		{`{"query":{"text":"a"},"pageSize":1000}`, `"path":"/pageSize"`},
	} {
		if resp, body := post(t, url+aicatalog.SearchPath, tc.body); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.path) {
			t.Errorf("%s: %d %s", tc.body, resp.StatusCode, body)
		}
	}
	if resp, body := post(t, url+aicatalog.SearchPath, `{"query":{"text":"`+strings.Repeat("a", aicatalog.MaxBodyBytes)+`"}}`); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized search: %d %s", resp.StatusCode, body)
	}
	if src.calls != 0 {
		t.Fatalf("refused searches reached the discovery engine %d times", src.calls)
	}
	// The three refusals above spent the discovery burst of 3.
	if resp, body := post(t, url+aicatalog.SearchPath, `{"query":{"text":"translate"}}`); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"errorCode":"RATE_LIMIT_EXCEEDED"`) {
		t.Errorf("search past the discovery budget: %d %s, want 429 with Retry-After in the catalog's error shape", resp.StatusCode, body)
	}
	now = now.Add(time.Minute)
	if resp, body := post(t, url+aicatalog.SearchPath, `{"query":{"text":"translate"}}`); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"results"`) || src.calls != 1 {
		t.Errorf("search: %d %s (%d discoveries)", resp.StatusCode, body, src.calls)
	}
	if resp, _ := post(t, url+"/v1/web/register", `{}`); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("other POST: %d, want 405", resp.StatusCode)
	}
	// Without WithCatalog, POST /search is refused like every other POST.
	plain := serve(t, newFake(t))
	if resp, _ := post(t, plain+aicatalog.SearchPath, `{"query":{"text":"a"}}`); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /search without a catalog: %d, want 405", resp.StatusCode)
	}
}
