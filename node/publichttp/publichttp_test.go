package publichttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/publichttp"
	"github.com/adpnode/adpnode/store"
)

const cardTmpl = `{"aip_version":"0.1","id":"ID","name":"public test","description":"serves its card",` +
	`"version":"1.0.0","skills":["nlp/translation"],"tools":[{"name":"translate","description":"translates"}],` +
	`"endpoints":[{"protocol":"aitp","uri":"aitp://x"}],"metadata":{"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"},"seq":1}`

// fakeService holds one card and records what discovery was asked.
type fakeService struct {
	card *adp.Card
	sk   crypto.PrivKey

	mu    sync.Mutex
	scope string
	req   *adp.DiscoverRequest

	// With gate set, Discover tells entered and waits for a value from
	// gate.
	gate, entered chan struct{}
}

func newFake(t testing.TB) *fakeService {
	return &fakeService{card: cardtest.Card(t, 7, cardTmpl), sk: cardtest.Key(t, 7)}
}

func (f *fakeService) Card() *adp.Card                  { return f.card }
func (f *fakeService) AgentCardID() string              { return "01ARZ3NDEKTSV4RRFFQ69G5FAV" }
func (f *fakeService) SignA2A(b []byte) ([]byte, error) { return bridge.SignA2A(b, f.sk) }
func (f *fakeService) DescribedCards(_ context.Context, offset, limit int) ([]*adp.Card, int, error) {
	if offset > 0 || limit < 1 {
		return nil, 1, nil
	}
	return []*adp.Card{f.card}, 1, nil
}

func (f *fakeService) DescribedCard(id string) *adp.Card {
	if n, err := adp.NormalizeAgentID(id); err == nil && n == f.card.ID {
		return f.card
	}
	return nil
}

func (f *fakeService) Status() nodeapi.Status {
	return nodeapi.Status{AgentID: f.card.ID, Name: f.card.Name, APIURL: "http://127.0.0.1:5001",
		Addrs: []string{"/ip4/127.0.0.1/tcp/4001", "/ip4/10.1.2.3/tcp/4001", "/ip4/8.8.8.8/tcp/4001"},
		Agent: &nodeapi.AgentStatus{PID: 42}, RelayAddrs: []string{}}
}

func (f *fakeService) PeerInfos() []nodeapi.PeerInfo {
	return []nodeapi.PeerInfo{{PeerID: "12D3KooWb", Addrs: []string{"/ip4/192.0.2.7/tcp/1"}, Conns: []string{nodeapi.ConnRelayed}}}
}

func (f *fakeService) record() *store.Record {
	return &store.Record{AgentID: f.card.ID, Card: f.card, ReceivedAt: time.Unix(0, 0), Source: store.SourceSelf}
}

func (f *fakeService) CardPage(_ context.Context, offset, limit int) ([]*store.Record, int, error) {
	if offset > 0 || limit < 1 {
		return nil, 1, nil
	}
	return []*store.Record{f.record()}, 1, nil
}

func (f *fakeService) HeldCard(_ context.Context, id string) (*store.Record, error) {
	n, err := adp.NormalizeAgentID(id)
	switch {
	case err != nil:
		return nil, err
	case n != f.card.ID:
		return nil, store.ErrNotFound
	}
	return f.record(), nil
}

func (f *fakeService) Discover(_ context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error) {
	if f.gate != nil {
		f.entered <- struct{}{}
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scope, f.req = scope, req
	return &adp.DiscoverResponse{RequestID: "r1", Results: []adp.DiscoverResult{}, Candidates: []adp.Candidate{}}, nil
}

// unlimited is a rate no test reaches.
var unlimited = ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 1e6, Burst: 1e6}, Network: ratelimit.Rate{PerSecond: 1e6, Burst: 1e6}}

// serve runs a public server on a free loopback port until the test ends
// and returns its URL.
func serve(t *testing.T, svc publichttp.Service, opts ...publichttp.Option) string {
	t.Helper()
	srv, err := publichttp.New(svc, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// fetch sends a request and returns the response with its body read.
func fetch(t *testing.T, c *http.Client, method, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestRateLimit: a source IP that spends its burst gets 429 with
// Retry-After; discovery has its own, smaller budget.
func TestRateLimit(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now } // never moves: no refill
	big := ratelimit.Rate{PerSecond: 1000, Burst: 1000}
	url := serve(t, newFake(t), publichttp.WithClock(clock), publichttp.WithLimits(
		ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 0.5, Burst: 4}, Network: big},
		ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 1, Burst: 1}, Network: big}))
	if resp, body := fetch(t, nil, "GET", url+"/view/v1/discover?q=translate"); resp.StatusCode != 200 {
		t.Fatalf("first discovery: %d %s", resp.StatusCode, body)
	}
	resp, body := fetch(t, nil, "GET", url+"/view/v1/discover?q=translate")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, `"rate_limited"`) {
		t.Fatalf("second discovery: %d Retry-After %q %s, want 429 after 1 s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for i := 0; i < 2; i++ { // 4 in the burst, 2 spent above
		if resp, body := fetch(t, nil, "GET", url+"/.well-known/adp-card.json"); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i+3, resp.StatusCode, body)
		}
	}
	resp, body = fetch(t, nil, "GET", url+"/.well-known/adp-card.json")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("request past the burst: %d Retry-After %q %s, want 429 after 2 s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// TestOversizedHeaders: a header block past MaxHeaderBytes is refused
// before any handler runs.
func TestOversizedHeaders(t *testing.T) {
	url := serve(t, newFake(t))
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "GET /.well-known/adp-card.json HTTP/1.1\r\nHost: x\r\nX-Padding: " + strings.Repeat("a", 2*publichttp.MaxHeaderBytes) + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("oversized headers: %d, want 431", resp.StatusCode)
	}
	if resp, _ := fetch(t, nil, "GET", url+"/.well-known/adp-card.json", "X-Padding", "small"); resp.StatusCode != 200 {
		t.Fatalf("small headers: %d", resp.StatusCode)
	}
}

// TestMaxConns: with a cap of one connection, a second client is not
// served until the first connection closes.
func TestMaxConns(t *testing.T) {
	url := serve(t, newFake(t), publichttp.WithMaxConns(1))
	first := &http.Client{Transport: &http.Transport{}}
	if resp, _ := fetch(t, first, "GET", url+"/.well-known/adp-card.json"); resp.StatusCode != 200 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	// first's connection stays open (keep-alive) and holds the only slot.
	second := &http.Client{Transport: &http.Transport{}, Timeout: 300 * time.Millisecond}
	if _, err := second.Get(url + "/.well-known/adp-card.json"); err == nil {
		t.Fatal("a second connection was served while the first held the only slot")
	}
	first.CloseIdleConnections()
	second.Timeout = 5 * time.Second
	if resp, body := fetch(t, second, "GET", url+"/.well-known/adp-card.json"); resp.StatusCode != 200 {
		t.Fatalf("after the first closed: %d %s", resp.StatusCode, body)
	}
}

// TestMaxSourceConns: with a cap of one connection per source IP, a
// second connection from the same address is closed unserved while
// another address is served, and is served once the first one closes.
func TestMaxSourceConns(t *testing.T) {
	url := serve(t, newFake(t), publichttp.WithMaxSourceConns(1, 1), publichttp.WithLimits(unlimited, unlimited))
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 5 * time.Second}
	}
	first := from("127.0.0.1")
	if resp, _ := fetch(t, first, "GET", url+"/.well-known/adp-card.json"); resp.StatusCode != 200 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	// first's connection stays open (keep-alive) and holds 127.0.0.1's slot.
	second := from("127.0.0.1")
	if _, err := second.Get(url + "/.well-known/adp-card.json"); err == nil {
		t.Fatal("a second connection from 127.0.0.1 was served while the first was open")
	}
	if resp, _ := fetch(t, from("127.0.0.2"), "GET", url+"/.well-known/adp-card.json"); resp.StatusCode != 200 {
		t.Fatalf("another loopback address: %d", resp.StatusCode)
	}
	first.CloseIdleConnections()
	// The server frees the slot when it reads the close.
	polltest.Until(t, 10*time.Second, func() error {
		resp, err := second.Get(url + "/.well-known/adp-card.json")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

// TestMaxSearches: with two discoveries running, a third from another
// source is answered 503 with Retry-After, and one runs again once a
// running one ends.
func TestMaxSearches(t *testing.T) {
	f := newFake(t)
	f.gate, f.entered = make(chan struct{}), make(chan struct{}, 4)
	h := aicatalog.NewHandler(func() aicatalog.Self { return aicatalog.Self{Name: "dir"} }, []aicatalog.Source{&countingSource{}})
	url := serve(t, f, publichttp.WithMaxSearches(2), publichttp.WithLimits(unlimited, unlimited), publichttp.WithCatalog(h))
	codes := make(chan int, 3)
	get := func() {
		resp, err := http.Get(url + "/view/v1/discover?q=translate")
		if err != nil {
			t.Error(err)
			codes <- 0
			return
		}
		resp.Body.Close()
		codes <- resp.StatusCode
	}
	go get()
	go get()
	<-f.entered
	<-f.entered
	resp, body := fetch(t, nil, "GET", url+"/view/v1/discover?q=translate")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("a third discovery: %d, Retry-After %q, %s; want 503 and 1", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// The catalog search shares the slots, and answers in its own shape.
	if resp, body := post(t, url+aicatalog.SearchPath, `{"query":{"text":"translate"}}`); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"errorCode":"RATE_LIMIT_EXCEEDED"`) {
		t.Fatalf("a search with every slot taken: %d %s", resp.StatusCode, body)
	}
	f.gate <- struct{}{}
	if c := <-codes; c != 200 {
		t.Fatalf("a running discovery answered %d", c)
	}
	go get()
	<-f.entered // a slot was free again
	f.gate <- struct{}{}
	f.gate <- struct{}{}
	for range 2 {
		if c := <-codes; c != 200 {
			t.Fatalf("a discovery answered %d", c)
		}
	}
}

// TestTrustedProxy: behind a trusted proxy each client the proxy names in
// X-Forwarded-For has its own rate budget and the proxy's connections are
// not capped; from a peer that is not trusted the header is not read.
func TestTrustedProxy(t *testing.T) {
	one := ratelimit.Config{Peer: ratelimit.Rate{PerSecond: 1e-6, Burst: 1}, Network: ratelimit.Rate{PerSecond: 1e6, Burst: 1e6}}
	now := time.Unix(1_700_000_000, 0)
	get := func(url, client string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, url+"/.well-known/adp-card.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if client != "" {
			req.Header.Set("X-Forwarded-For", client)
		}
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	proxied := serve(t, newFake(t), publichttp.WithLimits(one, unlimited), publichttp.WithClock(func() time.Time { return now }),
		publichttp.WithTrustedProxies([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}), publichttp.WithMaxSourceConns(1, 1))
	if get(proxied, "203.0.113.5") != 200 || get(proxied, "1.2.3.4, 203.0.113.6") != 200 {
		t.Fatal("two clients' first requests through the proxy were refused")
	}
	if c := get(proxied, "203.0.113.5"); c != http.StatusTooManyRequests {
		t.Fatalf("a client's second request: %d, want 429 (its own budget of 1)", c)
	}
	// Each get opened a connection of its own and kept it: with a cap of
	// one connection per source, only an exempt proxy gets this far.

	direct := serve(t, newFake(t), publichttp.WithLimits(one, unlimited), publichttp.WithClock(func() time.Time { return now }))
	if get(direct, "203.0.113.5") != 200 {
		t.Fatal("first request refused")
	}
	if c := get(direct, "203.0.113.6"); c != http.StatusTooManyRequests {
		t.Fatalf("a second request naming another client, from a peer not trusted: %d, want 429", c)
	}
}
