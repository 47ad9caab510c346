package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// eventService hands each Events subscriber the same channel and counts
// the subscriptions still open.
type eventService struct {
	fakeService
	ch   chan nodeapi.Event
	mu   sync.Mutex
	open int
}

func (s *eventService) Events(int) (<-chan nodeapi.Event, func(), error) {
	s.mu.Lock()
	s.open++
	s.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			s.mu.Lock()
			s.open--
			s.mu.Unlock()
		})
	}, nil
}

func (s *eventService) openSubs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

func openEvents(t *testing.T, ctx context.Context, base string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestEventsStream(t *testing.T) {
	svc := &eventService{ch: make(chan nodeapi.Event, 1)}
	srv := httptest.NewServer(httpapi.NewHandler(svc, httpapi.WithEventHeartbeat(20*time.Millisecond)))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := openEvents(t, ctx, srv.URL)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /v1/events: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	svc.ch <- nodeapi.Event{Kind: nodeapi.EventCardUpserted, Agent: "agent://k51x", Name: "<b>x</b>"}
	sc := bufio.NewScanner(resp.Body)
	var sawHeartbeat bool
	var got nodeapi.Event
	for sc.Scan() && (got.Kind == "" || !sawHeartbeat) {
		line := sc.Text()
		if line == ": heartbeat" {
			sawHeartbeat = true
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if err := json.Unmarshal([]byte(data), &got); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
		}
	}
	if got.Kind != nodeapi.EventCardUpserted || got.Agent != "agent://k51x" || got.Name != "<b>x</b>" || !sawHeartbeat {
		t.Fatalf("event %+v, heartbeat %v (scan err %v)", got, sawHeartbeat, sc.Err())
	}
	if svc.openSubs() != 1 {
		t.Fatalf("open subscriptions = %d, want 1", svc.openSubs())
	}
}

func TestEventsSubscriberCap(t *testing.T) {
	svc := &eventService{ch: make(chan nodeapi.Event)}
	srv := httptest.NewServer(httpapi.NewHandler(svc))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	var resps []*http.Response
	for range httpapi.MaxEventSubscribers {
		resp := openEvents(t, ctx, srv.URL)
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", len(resps), resp.StatusCode)
		}
		resps = append(resps, resp)
	}
	over := openEvents(t, ctx, srv.URL)
	over.Body.Close()
	if over.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("stream over the cap: %d, want 503", over.StatusCode)
	}
	cancel()
	for _, r := range resps {
		r.Body.Close()
	}
	polltest.Until(t, 5*time.Second, func() error {
		if n := svc.openSubs(); n != 0 {
			return fmt.Errorf("%d subscriptions still open after the clients left", n)
		}
		return nil
	})
}

func TestServerShutdownEndsEventStreams(t *testing.T) {
	svc := &eventService{ch: make(chan nodeapi.Event)}
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = httpapi.NewServer(svc)
	srv.Start()
	resp := openEvents(t, context.Background(), srv.URL)
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open event stream: %v", err)
	}
	srv.Close()
}

func TestWebUIServed(t *testing.T) {
	base := handlerURL(t)
	for _, tc := range []struct {
		path, ctype, want string
	}{
		{"/", "text/html; charset=utf-8", `<script type="module" src="/ui/app.js">`},
		{"/ui/app.js", "text/javascript; charset=utf-8", "EventSource('/v1/events')"},
		{"/ui/style.css", "text/css; charset=utf-8", ":root"},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&sb)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ctype || !strings.Contains(sb.String(), tc.want) {
			t.Errorf("GET %s: %d %q, body has %q: %v", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.want, strings.Contains(sb.String(), tc.want))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
	}
	for _, p := range []string{"/ui/", "/ui/nope.js", "/index.html", "/ui/../api.go"} {
		if code, _ := api(t, base, "GET", p, ""); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	req, _ := http.NewRequest("GET", base+"/", nil)
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("GET / with Host evil.example: %d, want 403", resp.StatusCode)
	}
}

// cardService holds one signed card.
type cardService struct {
	fakeService
	rec *store.Record
}

func (s cardService) LookupCard(context.Context, string) (*store.Record, error) { return s.rec, nil }

func TestCardByIDSignatureAndFormats(t *testing.T) {
	c := cardtest.Card(t, 1, `{"id":"ID","name":"Fmt","description":"d","skills":["nlp/translation"]}`)
	srv := httptest.NewServer(httpapi.NewHandler(cardService{rec: &store.Record{AgentID: c.ID, Card: c, ReceivedAt: time.Now()}}))
	t.Cleanup(srv.Close)
	code, body := api(t, srv.URL, "GET", "/v1/cards/"+url.PathEscape(c.ID), "")
	var v httpapi.CardView
	if err := json.Unmarshal([]byte(body), &v); code != 200 || err != nil || v.Signature != httpapi.SignatureValid {
		t.Fatalf("GET card: %d %s (%v)", code, body, err)
	}
	code, body = api(t, srv.URL, "GET", "/v1/cards/"+url.PathEscape(c.ID)+"?format=a2a", "")
	if code != 200 || !strings.Contains(body, `"name":"Fmt"`) || strings.Contains(body, `"agent_card"`) {
		t.Fatalf("GET card as A2A: %d %s", code, body)
	}
	if code, body = api(t, srv.URL, "GET", "/v1/cards/"+url.PathEscape(c.ID)+"?format=klingon", ""); code != 400 {
		t.Fatalf("GET card in an unknown format: %d %s", code, body)
	}
}

// domainService is a cardService that checks did:wba domains.
type domainService struct {
	cardService
	verdict string
}

func (s domainService) DomainVerified(_ context.Context, c *adp.Card) string {
	if c.ID != s.rec.Card.ID {
		return "wrong card"
	}
	return s.verdict
}

// TestCardByIDDomainVerified: GET /v1/cards/{id} reports the domain check
// of a Service that is a DomainVerifier, and nothing otherwise; the DID
// document is served where WithDIDDocument mounts it.
func TestCardByIDDomainVerified(t *testing.T) {
	c := cardtest.Card(t, 1, `{"id":"ID","name":"Dom"}`)
	rec := &store.Record{AgentID: c.ID, Card: c, ReceivedAt: time.Now()}
	doc := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"id":"did:wba:example.com"}`) })
	for _, tc := range []struct {
		svc  httpapi.Service
		want string
	}{
		{domainService{cardService{rec: rec}, "verified"}, "verified"},
		{cardService{rec: rec}, ""},
	} {
		srv := httptest.NewServer(httpapi.NewHandler(tc.svc, httpapi.WithDIDDocument("/.well-known/did.json", doc)))
		code, body := api(t, srv.URL, "GET", "/v1/cards/"+url.PathEscape(c.ID), "")
		var v httpapi.CardView
		if err := json.Unmarshal([]byte(body), &v); code != 200 || err != nil || v.DomainVerified != tc.want {
			t.Errorf("GET card: %d %s (%v), want domain_verified %q", code, body, err, tc.want)
		}
		if code, body := api(t, srv.URL, "GET", "/.well-known/did.json", ""); code != 200 || body != `{"id":"did:wba:example.com"}` {
			t.Errorf("GET /.well-known/did.json: %d %s", code, body)
		}
		srv.Close()
	}
}
