package aicatalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/aicatalog"
)

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeSource answers every discovery with its results and counts calls.
type fakeSource struct {
	results []adp.DiscoverResult
	origin  aicatalog.Origin
	calls   int
	last    *adp.DiscoverRequest
}

func (f *fakeSource) Discover(_ context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	f.calls++
	f.last = req
	return &adp.DiscoverResponse{Results: f.results}, nil
}

func (f *fakeSource) Origin(string) aicatalog.Origin { return f.origin }

func sources() (*fakeSource, *fakeSource) {
	p2p := &fakeSource{
		origin: aicatalog.Origin{Provenance: "gossip", Signed: true},
		results: []adp.DiscoverResult{{
			ID: "agent://k51abc", Name: "Flight Booker", Description: "books flights", Score: 0.914,
			AgentCard: json.RawMessage(`{"id":"agent://k51abc","name":"Flight Booker","version":"1.2","skills":["travel/booking"],"tools":[{"name":"book_flight"}]}`),
		}},
	}
	web := &fakeSource{
		origin: aicatalog.Origin{Provenance: aicatalog.ProvenanceWeb, URL: "https://agents.example.org/.well-known/agent-card.json", MediaType: aicatalog.MediaA2ACard, Verified: []string{"jws"}},
		results: []adp.DiscoverResult{{
			ID: "https://agents.example.org/.well-known/agent-card.json", Name: "Trip Planner", Score: 0.42,
			AgentCard: json.RawMessage(`{"name":"Trip Planner","skills":["travel"],"tools":[{"name":"plan"}]}`),
		}},
	}
	return p2p, web
}

// TestPublishedRequests decodes the draft's request examples.
func TestPublishedRequests(t *testing.T) {
	r, err := aicatalog.ParseSearchRequest(readExample(t, "ard-7.2-search-request.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &aicatalog.SearchRequest{
		Query:      aicatalog.Query{Text: "find me a flight booking agent", Filter: map[string][]string{"type": {"application/a2a-agent-card+json"}}},
		Federation: "referrals", PageSize: 5,
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("7.2 request: got %+v, want %+v", r, want)
	}
	r, err = aicatalog.ParseSearchRequest(readExample(t, "ard-8-referrals-request.json"))
	if err != nil || r.PageSize != aicatalog.DefaultPageSize || r.Federation != "referrals" || r.Query.Filter != nil {
		t.Errorf("8 request: %+v, %v", r, err)
	}
	d := r.Discover()
	if d.Query != "find me a flight booking agent" || d.Limit != aicatalog.DefaultPageSize || d.Detail != adp.DetailFull {
		t.Errorf("discover request %+v", d)
	}
	_, err = aicatalog.ParseSearchRequest(readExample(t, "ard-5.2.1-filter-request.json"))
	var re *aicatalog.RequestError
	if !errors.As(err, &re) || re.Path != "/query/filter/trustManifest.attestations.type" {
		t.Errorf("5.2.1 request (unsupported filter): %v", err)
	}
}

// roundTrip decodes name into v, encodes it again and compares the two
// JSON documents as values.
func roundTrip(t *testing.T, name string, v any) {
	t.Helper()
	in := readExample(t, name)
	if err := json.Unmarshal(in, v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(in, &a)
	_ = json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("%s does not round-trip:\n in  %s\n out %s", name, in, out)
	}
}

func TestPublishedDocumentsRoundTrip(t *testing.T) {
	roundTrip(t, "ard-4.1-catalog.json", new(aicatalog.Catalog))
	roundTrip(t, "ard-7.2-search-response.json", new(aicatalog.SearchResponse))
}

// keysOf returns the member names of the JSON object b.
func keysOf(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkResult checks a result the handler wrote against the shape of the
// draft's example result: the example's required members present with
// the same JSON types, exactly one of url and data, an integer score in
// 0..100 and an absolute URI as source.
func checkResult(t *testing.T, ex, got map[string]any) {
	t.Helper()
	for _, k := range []string{"identifier", "displayName", "type", "score", "source"} {
		if reflect.TypeOf(got[k]) != reflect.TypeOf(ex[k]) {
			t.Errorf("result member %q: %T (%v), example has %T", k, got[k], got[k], ex[k])
		}
	}
	_, hasURL := got["url"]
	_, hasData := got["data"]
	if hasURL == hasData {
		t.Errorf("result %v: want exactly one of url and data", got)
	}
	if s, _ := got["score"].(float64); s != float64(int(s)) || s < 0 || s > 100 {
		t.Errorf("score %v: want an integer from 0 to 100", got["score"])
	}
	if u, err := url.Parse(got["source"].(string)); err != nil || u.Scheme == "" {
		t.Errorf("source %v is not an absolute URI", got["source"])
	}
	if id, _ := got["identifier"].(string); !strings.HasPrefix(id, "urn:ai:") || strings.Count(id, ":") < 4 {
		t.Errorf("identifier %q is not urn:ai:<publisher>:<namespace>:<name>", id)
	}
}

func post(h http.Handler, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "http://dir.example.net"+aicatalog.SearchPath, strings.NewReader(body)))
	return w
}

func TestSearchShapeAndProvenance(t *testing.T) {
	p2p, web := sources()
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{Name: "dir"} }, []aicatalog.Source{p2p, web})
	var ex struct{ Results []json.RawMessage }
	if err := json.Unmarshal(readExample(t, "ard-7.2-search-response.json"), &ex); err != nil {
		t.Fatal(err)
	}
	exResult := keysOf(t, ex.Results[0])

	w := post(h, `{"query":{"text":"book a flight"}}`)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %s: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	var resp struct{ Results []json.RawMessage }
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) != 2 {
		t.Fatalf("response %s: %v", w.Body, err)
	}
	first, second := keysOf(t, resp.Results[0]), keysOf(t, resp.Results[1])
	checkResult(t, exResult, first)
	checkResult(t, exResult, second)
	if first["score"] != 91.0 || first["source"] != "adpnode:gossip" || first["type"] != aicatalog.MediaADPCard ||
		first["identifier"] != "urn:ai:dir.example.net:adpnode:k51abc" {
		t.Errorf("adpnode result: %v", first)
	}
	meta, _ := first["metadata"].(map[string]any)["adpnode"].(map[string]any)
	if meta["provenance"] != "gossip" || meta["signed"] != true {
		t.Errorf("adpnode result metadata: %v", first["metadata"])
	}
	if second["score"] != 42.0 || second["source"] != web.origin.URL || second["url"] != web.origin.URL || second["type"] != aicatalog.MediaA2ACard {
		t.Errorf("web result: %v", second)
	}
	meta, _ = second["metadata"].(map[string]any)["adpnode"].(map[string]any)
	if meta["provenance"] != "web" || meta["signed"] != false {
		t.Errorf("web result metadata: %v", second["metadata"])
	}

	// The draft's own request: its type filter keeps the A2A card only.
	w = post(h, string(readExample(t, "ard-7.2-search-request.json")))
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) != 1 || keysOf(t, resp.Results[0])["displayName"] != "Trip Planner" {
		t.Errorf("filtered search: %s", w.Body)
	}
	if p2p.last.Limit != aicatalog.MaxPageSize {
		t.Errorf("a filtered search asks for %d candidates, want %d", p2p.last.Limit, aicatalog.MaxPageSize)
	}
	w = post(h, `{"query":{"text":"x","filter":{"source":"web"}},"pageSize":1}`)
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) != 1 || keysOf(t, resp.Results[0])["displayName"] != "Trip Planner" {
		t.Errorf("source filter: %s", w.Body)
	}
	w = post(h, `{"query":{"text":"x"},"pageSize":1}`)
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) != 1 || keysOf(t, resp.Results[0])["displayName"] != "Flight Booker" {
		t.Errorf("page of one: %s", w.Body)
	}
}

func TestBadSearchRequests(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		path       string
	}{
		{"empty body", ``, 400, ""},
		{"not JSON", `{`, 400, ""},
		{"array", `[]`, 400, ""},
		{"trailing data", `{"query":{"text":"a"}} {}`, 400, ""},
		{"stray bracket after the body", `{"query":{"text":"a"}} ]]`, 400, ""},
		{"no query", `{}`, 400, "/query"},
		{"no text", `{"query":{}}`, 400, "/query/text"},
		{"blank text", `{"query":{"text":"  "}}`, 400, "/query/text"},
		{"text a number", `{"query":{"text":7}}`, 400, "/query/text"},
		{"text too long", `{"query":{"text":"` + strings.Repeat("a", aicatalog.MaxTextBytes+1) + `"}}`, 400, "/query/text"},
		{"unknown member", `{"query":{"text":"a"},"querry":1}`, 400, "/querry"},
		{"unknown query member", `{"query":{"text":"a","txt":1}}`, 400, "/query/txt"},
		{"unsupported filter", `{"query":{"text":"a","filter":{"metadata.x":"y"}}}`, 400, "/query/filter/metadata.x"},
		{"filter number", `{"query":{"text":"a","filter":{"tags":3}}}`, 400, "/query/filter/tags"},
		{"filter empty list", `{"query":{"text":"a","filter":{"tags":[]}}}`, 400, "/query/filter/tags"},
		{"filter empty value", `{"query":{"text":"a","filter":{"tags":["ok",""]}}}`, 400, "/query/filter/tags/1"},
		{"filter too many", `{"query":{"text":"a","filter":{"tags":[` + strings.Repeat(`"x",`, aicatalog.MaxFilterValues) + `"x"]}}}`, 400, "/query/filter/tags"},
		{"federation", `{"query":{"text":"a"},"federation":"all"}`, 400, "/federation"},
		{"pageSize 0", `{"query":{"text":"a"},"pageSize":0}`, 400, "/pageSize"},
		{"pageSize 101", `{"query":{"text":"a"},"pageSize":101}`, 400, "/pageSize"},
		{"pageSize string", `{"query":{"text":"a"},"pageSize":"5"}`, 400, "/pageSize"},
		{"pageToken", `{"query":{"text":"a"},"pageToken":"eyJ9"}`, 400, "/pageToken"},
		{"too large", `{"query":{"text":"` + strings.Repeat("a", aicatalog.MaxBodyBytes) + `"}}`, 413, ""},
	} {
		p2p, web := sources()
		h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{} }, []aicatalog.Source{p2p, web})
		w := post(h, tc.body)
		var e aicatalog.ErrorBody
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != tc.status || e.Path != tc.path || e.ErrorCode != aicatalog.CodeInvalidArgument || e.Message == "" {
			t.Errorf("%s: %d %s, want %d at %q", tc.name, w.Code, w.Body, tc.status, tc.path)
		}
		if p2p.calls+web.calls != 0 {
			t.Errorf("%s: a refused request reached the discovery engine", tc.name)
		}
	}
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{} }, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, aicatalog.SearchPath, nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "POST" {
		t.Errorf("GET /search: %d %v", w.Code, w.Header())
	}
}

func TestCatalogDocument(t *testing.T) {
	h := aicatalog.NewHandler(func() aicatalog.Self {
		return aicatalog.Self{Name: "Directory", Description: "finds agents", AgentID: "agent://k51dir"}
	}, nil, aicatalog.WithURL("https://dir.example.net/"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, aicatalog.WellKnownPath, nil))
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") == "" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	got := keysOf(t, w.Body.Bytes())
	ex := keysOf(t, readExample(t, "ard-4.1-catalog.json"))
	for _, k := range []string{"specVersion", "host", "entries"} {
		if reflect.TypeOf(got[k]) != reflect.TypeOf(ex[k]) {
			t.Errorf("catalog member %q: %T, example has %T", k, got[k], ex[k])
		}
	}
	var c aicatalog.Catalog
	if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || len(c.Entries) != 2 {
		t.Fatalf("%s: %v", w.Body, err)
	}
	reg := c.Entries[1]
	if reg.Type != aicatalog.MediaRegistry || reg.URL != "https://dir.example.net/" || c.Entries[0].URL != "https://dir.example.net/.well-known/agent-card.json" ||
		c.Entries[0].Identifier != "urn:ai:dir.example.net:adpnode:k51dir" {
		t.Errorf("entries %+v", c.Entries)
	}
}

// FuzzParseSearchRequest: any body is refused with a RequestError or
// ErrTooLarge, or parses to a request that encodes and parses to itself.
func FuzzParseSearchRequest(f *testing.F) {
	for _, name := range []string{"ard-7.2-search-request.json", "ard-8-referrals-request.json", "ard-5.2.1-filter-request.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"query":{"text":"a","filter":{"tags":"x","source":["web","adpnode:dht"]}},"pageSize":100}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := aicatalog.ParseSearchRequest(body)
		if err != nil {
			var re *aicatalog.RequestError
			if !errors.As(err, &re) && !errors.Is(err, aicatalog.ErrTooLarge) {
				t.Fatalf("%q: unexpected error %v", body, err)
			}
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		again, err := aicatalog.ParseSearchRequest(b)
		if err != nil || !reflect.DeepEqual(r, again) {
			t.Fatalf("%q -> %s -> %+v, %v", body, b, again, err)
		}
		if bytes.Contains(b, []byte(`"pageToken"`)) {
			t.Fatalf("a parsed request carries a page token: %s", b)
		}
	})
}

// stalled is a source whose discovery waits for its context to end.
type stalled struct{}

func (stalled) Discover(ctx context.Context, _ *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stalled) Origin(string) aicatalog.Origin { return aicatalog.Origin{} }

// TestSearchTimeout: a search past its own bound is 504, not 500.
func TestSearchTimeout(t *testing.T) {
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{} }, []aicatalog.Source{stalled{}},
		aicatalog.WithSearchTimeout(10*time.Millisecond))
	w := post(h, `{"query":{"text":"a"}}`)
	var e aicatalog.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusGatewayTimeout || e.ErrorCode != aicatalog.CodeInternal {
		t.Fatalf("a search past its bound: %d %s, want 504 with INTERNAL_ERROR", w.Code, w.Body)
	}
}
