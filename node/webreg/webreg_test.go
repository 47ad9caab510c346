package webreg_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/build"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/netguard"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/webreg"
)

const travelCard = `{"id": "ID", "name": "Fjord Flights", "description": "Books flights to Norway and back.",
 "skills": ["travel/booking"], "tools": [{"name": "book_flight", "description": "Book a flight"}],
 "endpoints": [{"protocol": "https", "uri": "https://fjord.example/a2a"}]}`

const anpDoc = `{"@context": {"ad": "https://agent-network-protocol.com/ad#"}, "@type": "ad:AgentDescription",
 "name": "Harbour Hotels", "description": "Finds hotel rooms near the harbour.",
 "interfaces": [{"@type": "ad:StructuredInterface", "protocol": "JSON-RPC", "url": "https://hotels.example/rpc"}]}`

// docs serves the documents the tests register.
func docs(t *testing.T) (*httptest.Server, map[string][]byte) {
	t.Helper()
	c := cardtest.Card(t, 7, travelCard)
	a2a, err := bridge.ToA2A(c)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bridge.SignA2A(a2a, cardtest.Key(t, 7))
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte("Fjord Flights"), []byte("Fjord Fligh7s"), 1)
	if bytes.Equal(tampered, signed) {
		t.Fatal("the signed card does not hold its name")
	}
	m := map[string][]byte{
		"/signed.json":   signed,
		"/unsigned.json": bytes.Replace(a2a, []byte("Fjord Flights"), []byte("Fjord Flights Mirror"), 1),
		"/anp.json":      []byte(anpDoc),
		"/tampered.json": tampered,
		"/big.json":      append([]byte(`{"name":"`), append(bytes.Repeat([]byte("a"), webreg.MaxDocBytes), `"}`...)...),
		"/notjson.json":  []byte("<html>hello</html>"),
		"/noname.json":   []byte(`{"description":"who am I"}`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect.json" {
			http.Redirect(w, r, "/signed.json", http.StatusFound)
			return
		}
		b, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, m
}

func newRegistry(t *testing.T, opts ...webreg.Option) *webreg.Registry {
	t.Helper()
	r, err := webreg.New(append([]webreg.Option{webreg.WithPrivateAddresses(true)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

var local = netip.MustParseAddr("127.0.0.1")

func TestRegisterAndSearch(t *testing.T) {
	srv, _ := docs(t)
	var didChecks int
	r := newRegistry(t, webreg.WithDIDCheck(func(context.Context, *adp.Card) bool { didChecks++; return true }))
	ctx := context.Background()

	signed, err := r.Register(ctx, srv.URL+"/signed.json", "a", local)
	want := adp.AgentID(mustPeer(t))
	if err != nil || !signed.Signed || signed.KeyID != want || signed.Format != webreg.FormatA2A ||
		signed.Provenance != "web" || len(signed.Verified) != 1 || signed.Verified[0] != webreg.VerifiedJWS {
		t.Fatalf("signed A2A card: %+v, %v", signed, err)
	}
	unsigned, err := r.Register(ctx, srv.URL+"/unsigned.json", "a", local)
	if err != nil || unsigned.Signed || unsigned.KeyID != "" || len(unsigned.Verified) != 0 {
		t.Fatalf("unsigned A2A card: %+v, %v", unsigned, err)
	}
	anp, err := r.Register(ctx, srv.URL+"/anp.json", "a", local)
	if err != nil || anp.Format != webreg.FormatANP || anp.Name != "Harbour Hotels" || anp.Signed {
		t.Fatalf("ANP description: %+v, %v", anp, err)
	}
	if didChecks != 0 {
		t.Errorf("a card without a did:wba DID was checked %d times", didChecks)
	}
	again, err := r.Register(ctx, srv.URL+"/signed.json", "a", local)
	if err != nil || !again.Replaced || r.Len() != 3 {
		t.Errorf("registering a URL again: %+v, %v, %d held", again, err, r.Len())
	}

	// The AI Catalog search over the registry finds them, marked web.
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{Name: "dir"} }, []aicatalog.Source{r})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, aicatalog.SearchPath, strings.NewReader(`{"query":{"text":"book a flight to Norway"}}`)))
	var resp aicatalog.SearchResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) == 0 {
		t.Fatalf("search: %d %s", w.Code, w.Body)
	}
	top := resp.Results[0]
	meta := top.Metadata["adpnode"].(map[string]any)
	if !strings.HasPrefix(top.Source, srv.URL) || top.URL != top.Source || top.Type != aicatalog.MediaA2ACard ||
		meta["provenance"] != "web" || meta["signed"] != false || !strings.Contains(top.DisplayName, "Fjord") {
		t.Errorf("top result %+v", top)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, aicatalog.SearchPath, strings.NewReader(`{"query":{"text":"hotel room harbour"}}`)))
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || len(resp.Results) == 0 ||
		resp.Results[0].Type != aicatalog.MediaANPDescription || resp.Results[0].URL != srv.URL+"/anp.json" {
		t.Errorf("ANP search: %s", w.Body)
	}
}

func mustPeer(t *testing.T) peer.ID {
	t.Helper()
	p, err := peer.IDFromPrivateKey(cardtest.Key(t, 7))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRegisterRefusals(t *testing.T) {
	srv, _ := docs(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for _, tc := range []struct {
		name, url string
		private   bool
		want      error
	}{
		{"not a URL", "::not a url", true, webreg.ErrRefusedURL},
		{"ftp", "ftp://example.com/card.json", true, webreg.ErrRefusedURL},
		{"no host", "http:///card.json", true, webreg.ErrRefusedURL},
		{"user info", "http://u:p@example.com/", true, webreg.ErrRefusedURL},
		{"metadata", "http://169.254.169.254/latest/meta-data/", true, webreg.ErrRefusedURL},
		{"metadata v6", "http://[fd00:ec2::254]/", true, webreg.ErrRefusedURL},
		{"loopback without the option", srv.URL + "/signed.json", false, webreg.ErrRefusedURL},
		{"name resolving to loopback", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/signed.json", false, webreg.ErrRefusedURL},
		{"unreachable", closedURL + "/card.json", true, webreg.ErrFetch},
		{"404", srv.URL + "/missing.json", true, webreg.ErrFetch},
		{"redirect", srv.URL + "/redirect.json", true, webreg.ErrFetch},
		{"oversized", srv.URL + "/big.json", true, webreg.ErrTooLarge},
		{"not JSON", srv.URL + "/notjson.json", true, webreg.ErrFormat},
		{"no name", srv.URL + "/noname.json", true, webreg.ErrFormat},
		{"bad signature", srv.URL + "/tampered.json", true, webreg.ErrSignature},
	} {
		r := newRegistry(t, webreg.WithPrivateAddresses(tc.private))
		reg, err := r.Register(context.Background(), tc.url, "a", local)
		if !errors.Is(err, tc.want) || reg != nil {
			t.Errorf("%s: %+v, %v, want %v", tc.name, reg, err, tc.want)
		}
		if tc.want == webreg.ErrRefusedURL && !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("%s: %v does not wrap netguard.ErrRefused", tc.name, err)
		}
		if r.Len() != 0 {
			t.Errorf("%s: a refused registration was stored", tc.name)
		}
		resp, _ := r.Discover(context.Background(), &adp.DiscoverRequest{Query: "flights"})
		if resp != nil && len(resp.Results) != 0 {
			t.Errorf("%s: a refused registration is found", tc.name)
		}
	}
}

func TestCapAndRate(t *testing.T) {
	srv, _ := docs(t)
	ctx := context.Background()
	r := newRegistry(t, webreg.WithMaxCards(1))
	if _, err := r.Register(ctx, srv.URL+"/signed.json", "a", local); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(ctx, srv.URL+"/anp.json", "a", local); !errors.Is(err, webreg.ErrFull) {
		t.Errorf("beyond the cap: %v", err)
	}
	if _, err := r.Register(ctx, srv.URL+"/signed.json", "a", local); err != nil {
		t.Errorf("renewing a held URL at the cap: %v", err)
	}

	now := time.Unix(1_800_000_000, 0)
	r = newRegistry(t, webreg.WithClock(func() time.Time { return now }), webreg.WithTTL(time.Hour),
		webreg.WithLimits(ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 0.01, Burst: 2}, Network: ratelimit.Rate{PerSecond: 1, Burst: 100}}))
	for i := 0; i < 2; i++ {
		if _, err := r.Register(ctx, srv.URL+"/signed.json", "a", local); err != nil {
			t.Fatal(err)
		}
	}
	var re *webreg.RateError
	if _, err := r.Register(ctx, srv.URL+"/anp.json", "a", local); !errors.As(err, &re) || re.RetryAfter <= 0 {
		t.Errorf("over the rate: %v", err)
	}
	if _, err := r.Register(ctx, srv.URL+"/anp.json", "b", netip.MustParseAddr("192.0.2.1")); err != nil {
		t.Errorf("another source: %v", err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := r.Register(ctx, srv.URL+"/unsigned.json", "b", netip.MustParseAddr("192.0.2.1")); err != nil || r.Len() != 1 {
		t.Errorf("after the TTL the old registrations expire: %v, %d held", err, r.Len())
	}
}

func TestHandlerBadInput(t *testing.T) {
	srv, _ := docs(t)
	for _, tc := range []struct {
		name, body string
		status     int
		path       string
	}{
		{"empty", ``, 400, ""},
		{"not JSON", `{`, 400, ""},
		{"no url", `{}`, 400, "/url"},
		{"url a number", `{"url": 5}`, 400, "/url"},
		{"unknown member", `{"url": "x", "uri": "y"}`, 400, "/uri"},
		{"trailing", `{"url": "x"} {}`, 400, ""},
		{"stray bracket", `{"url": "x"} ]`, 400, ""},
		{"metadata address", `{"url": "http://169.254.169.254/"}`, 400, "/url"},
		{"too large", `{"url": "` + strings.Repeat("a", webreg.MaxRequestBytes) + `"}`, 413, ""},
		{"unreachable", `{"url": "` + srv.URL + `/missing.json"}`, 502, ""},
		{"bad signature", `{"url": "` + srv.URL + `/tampered.json"}`, 422, ""},
	} {
		r := newRegistry(t)
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, webreg.RegisterPath, strings.NewReader(tc.body))
		req.RemoteAddr = "127.0.0.1:5000"
		r.Handler().ServeHTTP(w, req)
		var e struct{ Code, Message, Path string }
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != tc.status || e.Path != tc.path || e.Message == "" {
			t.Errorf("%s: %d %s, want %d at %q", tc.name, w.Code, w.Body, tc.status, tc.path)
		}
		if r.Len() != 0 {
			t.Errorf("%s: stored", tc.name)
		}
	}
	r := newRegistry(t)
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, webreg.RegisterPath, strings.NewReader(`{"url":"`+srv.URL+`/anp.json"}`))
	req.RemoteAddr = "127.0.0.1:5000"
	r.Handler().ServeHTTP(w, req)
	var reg webreg.Registration
	if err := json.Unmarshal(w.Body.Bytes(), &reg); w.Code != http.StatusCreated || err != nil || reg.Provenance != "web" {
		t.Errorf("registration: %d %s", w.Code, w.Body)
	}
}

// TestNeverRelayed: web cards cannot reach gossip, the DHT or the card
// store, because nothing the registry is built from imports them.
func TestNeverRelayed(t *testing.T) {
	const module = "github.com/adpnode/adpnode/"
	forbidden := map[string]bool{module + "gossip": true, module + "dht": true, module + "store": true, module + "node/intake": true}
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		if forbidden[path] {
			t.Errorf("node/webreg depends on %s", path)
			return
		}
		pkg, err := build.ImportDir("../../"+strings.TrimPrefix(path, module), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp)
			}
		}
	}
	walk(module + "node/webreg")
	if !seen[module+"node/discovery"] {
		t.Error("the walk did not reach node/discovery: the import graph was not read")
	}
}
