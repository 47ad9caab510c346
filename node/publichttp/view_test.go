package publichttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/publichttp"
	"github.com/adpnode/adpnode/node/webui"
)

// TestViewShowsOnlyPublic: the view endpoints leave out what only the
// operator should see, and discovery is local with the query's fields.
func TestViewShowsOnlyPublic(t *testing.T) {
	f := newFake(t)
	base := serve(t, f)
	_, body := fetch(t, nil, "GET", base+"/view/v1/status")
	var st nodeapi.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.APIURL != "" || st.Agent != nil || !slices.Equal(st.Addrs, []string{"/ip4/8.8.8.8/tcp/4001"}) || st.AgentID != f.card.ID {
		t.Errorf("public status %+v: want no API URL, no agent, public addresses only", st)
	}
	_, body = fetch(t, nil, "GET", base+"/view/v1/peers")
	if strings.Contains(body, "192.0.2.7") || !strings.Contains(body, `"relayed"`) {
		t.Errorf("public peers %s: want no addresses, connection kinds kept", body)
	}
	q := url.Values{"q": {"translate a contract"}, "tag": {"nlp/translation", "legal"}, "excluded": {"nlp/ocr"}, "limit": {"5"}, "min_score": {"0.2"}}
	if resp, body := fetch(t, nil, "GET", base+"/view/v1/discover?"+q.Encode()); resp.StatusCode != 200 {
		t.Fatalf("discover: %d %s", resp.StatusCode, body)
	}
	f.mu.Lock()
	scope, req := f.scope, f.req
	f.mu.Unlock()
	if scope != discovery.ScopeLocal || req.Query != "translate a contract" || !slices.Equal(req.Tags, []string{"nlp/translation", "legal"}) ||
		!slices.Equal(req.ExcludedTags, []string{"nlp/ocr"}) || req.Limit != 5 || req.MinScore == nil || *req.MinScore != 0.2 || !req.IncludeEvidence {
		t.Errorf("discover asked scope %q with %+v", scope, req)
	}
	resp, body := fetch(t, nil, "GET", base+"/view/v1/cards/"+url.PathEscape(f.card.ID))
	if resp.StatusCode != 200 || !strings.Contains(body, `"signature":"valid"`) {
		t.Errorf("held card: %d %s", resp.StatusCode, body)
	}
	if resp, body := fetch(t, nil, "GET", base+"/view/v1/cards/"+url.PathEscape(f.card.ID)+"?format=a2a"); resp.StatusCode != 200 || !strings.Contains(body, "supportedInterfaces") {
		t.Errorf("held card as A2A: %d %s", resp.StatusCode, body)
	}
}

// TestReadOnlyPage: "/" is the web view with the read-only meta tag and
// its Content Security Policy.
func TestReadOnlyPage(t *testing.T) {
	base := serve(t, newFake(t))
	resp, body := fetch(t, nil, "GET", base+"/")
	if resp.StatusCode != 200 || !strings.Contains(body, `<meta name="`+webui.ReadOnlyMeta+`" content="`+publichttp.ViewPrefix+`">`) {
		t.Fatalf("page: %d, want the read-only meta tag in %s", resp.StatusCode, body)
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("page CSP %q", resp.Header.Get("Content-Security-Policy"))
	}
	if resp, _ := fetch(t, nil, "GET", base+webui.AssetPrefix+"app.js"); resp.StatusCode != 200 {
		t.Errorf("app.js: %d", resp.StatusCode)
	}
}

// TestBadInput: each public endpoint refuses malformed input with a 4xx
// in the API's error model, and calls no service method that would act on
// it.
func TestBadInput(t *testing.T) {
	f := newFake(t)
	h := handler(t, f)
	long := strings.Repeat("a", publichttp.MaxQueryBytes)
	tags := strings.Repeat("tag=a&", publichttp.MaxListParams+1)
	for _, tt := range []struct {
		name, method, target, host string
		status                     int
	}{
		{"ANP page zero", "GET", "/.well-known/agent-descriptions?page=0", "", 400},
		{"ANP page not a number", "GET", "/.well-known/agent-descriptions?page=x", "", 400},
		{"ANP page too large", "GET", "/.well-known/agent-descriptions?page=99999999", "", 400},
		{"description of an unknown agent", "GET", "/agents/k51nope/ad.json", "", 404},
		{"description of a non-id", "GET", "/agents/%00/ad.json", "", 404},
		{"unknown document", "GET", "/.well-known/nothing", "", 404},
		{"Host with a path", "GET", "/.well-known/agent-descriptions", "a.example/x", 400},
		{"cards limit zero", "GET", "/view/v1/cards?limit=0", "", 400},
		{"cards limit too large", "GET", "/view/v1/cards?limit=100000", "", 400},
		{"cards negative offset", "GET", "/view/v1/cards?offset=-1", "", 400},
		{"card of a non-id", "GET", "/view/v1/cards/nonsense", "", 400},
		{"card not held", "GET", "/view/v1/cards/" + url.PathEscape(cardtest.Card(t, 8, cardTmpl).ID), "", 404},
		{"card in an unknown format", "GET", "/view/v1/cards/" + url.PathEscape(f.card.ID) + "?format=nope", "", 400},
		{"discover unknown parameter", "GET", "/view/v1/discover?scope=network", "", 400},
		{"discover limit too large", "GET", "/view/v1/discover?limit=1000", "", 400},
		{"discover limit twice", "GET", "/view/v1/discover?limit=1&limit=2", "", 400},
		{"discover min_score NaN", "GET", "/view/v1/discover?min_score=NaN", "", 400},
		{"discover min_score above 1", "GET", "/view/v1/discover?min_score=2", "", 400},
		{"discover too many tags", "GET", "/view/v1/discover?" + tags, "", 400},
		{"discover bad tag", "GET", "/view/v1/discover?tag=" + url.QueryEscape("NOT A TAG \x01"), "", 400},
		{"query too long", "GET", "/view/v1/discover?q=" + long, "", 414},
		{"admin API", "GET", "/v1/status", "", 404},
		{"MCP", "GET", "/mcp", "", 404},
		{"POST", "POST", "/view/v1/discover", "", 405},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f.mu.Lock()
			f.req = nil
			f.mu.Unlock()
			r := httptest.NewRequest(tt.method, tt.target, nil)
			if tt.host != "" {
				r.Host = tt.host
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			var e struct{ Code, Message string }
			if w.Code != tt.status || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Code == "" || e.Message == "" {
				t.Fatalf("%s %s: %d %s, want %d and an error body", tt.method, tt.target, w.Code, w.Body, tt.status)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.req != nil {
				t.Errorf("a refused request reached Discover: %+v", f.req)
			}
		})
	}
}

// handler is the server's handler with limits no test reaches.
func handler(t testing.TB, svc publichttp.Service) http.Handler {
	t.Helper()
	srv, err := publichttp.New(svc, publichttp.WithLimits(unlimited, unlimited))
	if err != nil {
		t.Fatal(err)
	}
	return srv.Handler()
}

// FuzzPublicRequest: whatever the method, path and query, the public
// server answers no 5xx, never a 2xx for the admin API, and always
// nosniff.
func FuzzPublicRequest(f *testing.F) {
	for _, s := range []string{"/.well-known/agent-card.json", "/agents/x/ad.json", "/view/v1/discover?q=a&tag=b&limit=3",
		"/view/v1/cards/agent%3A%2F%2Fx?format=a2a", "/v1/invoke", "/mcp", "/ui/app.js", "/.well-known/agent-descriptions?page=2"} {
		f.Add("GET", s)
	}
	f.Add("POST", "/v1/card")
	svc := newFake(f)
	h := handler(f, svc)
	f.Fuzz(func(t *testing.T, method, target string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") || method == "" || strings.ContainsAny(method, " \r\n\t/:") {
			t.Skip()
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Skip()
		}
		r, err := http.NewRequest(method, "http://public.example"+target, nil)
		if err != nil {
			t.Skip()
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s %s: no nosniff", method, target)
		}
		if p := u.Path; (strings.HasPrefix(p, "/v1/") || p == "/mcp" || p == "/metrics") && w.Code < 300 {
			t.Fatalf("%s %s reached the admin API: %d", method, target, w.Code)
		}
		if method != "GET" && method != "HEAD" && w.Code != http.StatusMethodNotAllowed {
			t.Fatalf("%s %s: %d, want 405", method, target, w.Code)
		}
	})
}
