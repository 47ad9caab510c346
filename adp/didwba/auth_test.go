package didwba_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/internal/netguard"
	"github.com/adpnode/adpnode/internal/polltest"
)

// world is one HTTPS server (httptest's test CA, whose certificate names
// example.com) that serves DID documents and, at /anp/ping, a resource
// behind an Authenticator; its client dials that server for every host,
// so that did:wba:example.com%3A<port>:... resolves to it with no
// network.
type world struct {
	t       *testing.T
	srv     *httptest.Server
	client  *http.Client
	port    int
	now     atomic.Pointer[time.Time]
	auth    *didwba.Authenticator
	mu      sync.Mutex
	docs    map[string][]byte // path -> body
	fetches atomic.Int64
}

// dialTo returns a DialContext that connects to addr whatever address
// it is asked for, as if every host name resolved to addr, through
// netguard's dialer (allowPrivate as given).
func dialTo(addr string, allowPrivate bool) func(context.Context, string, string) (net.Conn, error) {
	d := netguard.NewDialer(0, allowPrivate)
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
}

func newWorld(t *testing.T, opts ...didwba.AuthOption) *world {
	w := &world{t: t, docs: make(map[string][]byte)}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	w.now.Store(&now)
	clock := func() time.Time { return *w.now.Load() }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{path...}", func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		body, ok := w.docs[r.URL.Path]
		w.mu.Unlock()
		if !ok {
			http.NotFound(rw, r)
			return
		}
		w.fetches.Add(1)
		rw.Header().Set("Content-Type", "application/json")
		rw.Write(body)
	})
	protected := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		did, _ := didwba.DIDFrom(r.Context())
		fmt.Fprint(rw, did)
	})
	w.srv = httptest.NewUnstartedServer(mux)
	w.srv.StartTLS()
	t.Cleanup(w.srv.Close)
	w.port = w.srv.Listener.Addr().(*net.TCPAddr).Port
	w.client = w.srv.Client()
	tr := w.client.Transport.(*http.Transport).Clone()
	// The server listens on loopback: the guard allows it explicitly.
	tr.DialContext = dialTo(w.srv.Listener.Addr().String(), true)
	w.client.Transport = tr
	_, tokenKey, _ := ed25519.GenerateKey(nil)
	res := didwba.NewResolver(didwba.WithHTTPClient(w.client), didwba.WithResolverClock(clock))
	w.auth = didwba.NewAuthenticator(tokenKey, append([]didwba.AuthOption{didwba.WithResolver(res), didwba.WithClock(clock)}, opts...)...)
	mux.Handle("GET /anp/ping", w.auth.Middleware(protected))
	return w
}

// agent makes an agent whose DID document w serves, and its signer.
func (w *world) agent(name string) (*didwba.Signer, ed25519.PublicKey) {
	id, err := didwba.FromDomain(fmt.Sprintf("example.com:%d/agents/%s", w.port, name))
	if err != nil {
		w.t.Fatal(err)
	}
	pub, sk, _ := ed25519.GenerateKey(nil)
	doc, err := didwba.NewDocument(id.String(), pub, id.Origin()+"/agents/"+name+"/ad.json")
	if err != nil {
		w.t.Fatal(err)
	}
	w.serve(id.DocumentPath(), doc)
	return &didwba.Signer{DID: id.String(), Key: sk, Now: func() time.Time { return *w.now.Load() }}, pub
}

func (w *world) serve(path string, doc any) {
	body, err := json.Marshal(doc)
	if err != nil {
		w.t.Fatal(err)
	}
	w.mu.Lock()
	w.docs[path] = body
	w.mu.Unlock()
}

// url is the protected resource as a client names it.
func (w *world) url() string { return fmt.Sprintf("https://example.com:%d/anp/ping", w.port) }

// get requests the protected resource with an Authorization header.
func (w *world) get(auth string) *http.Response {
	req, _ := http.NewRequest(http.MethodGet, w.url(), nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// refusal returns the error code of a refused response, or why the
// response is not a well-formed refusal with that status.
func refusal(resp *http.Response, status int) (string, error) {
	if resp.StatusCode != status {
		return "", fmt.Errorf("status %d, want %d", resp.StatusCode, status)
	}
	ch := resp.Header.Get("WWW-Authenticate")
	rest, ok := strings.CutPrefix(ch, `Bearer error="`)
	if !ok {
		return "", fmt.Errorf("WWW-Authenticate %q has no Bearer error", ch)
	}
	code, _, _ := strings.Cut(rest, `"`)
	if !strings.Contains(ch, `error_description="`) {
		return code, fmt.Errorf("WWW-Authenticate %q has no error_description", ch)
	}
	return code, nil
}

func TestAuthenticateAcceptsAndIssuesToken(t *testing.T) {
	w := newWorld(t)
	signer, _ := w.agent("alice")
	h, err := signer.Header("example.com")
	if err != nil {
		t.Fatal(err)
	}
	resp := w.get(h)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("signed request: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	tok, ok := strings.CutPrefix(resp.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.Count(tok, ".") != 2 {
		t.Fatalf("response Authorization = %q, want a Bearer JWT", resp.Header.Get("Authorization"))
	}
	if resp := w.get("Bearer " + tok); resp.StatusCode != http.StatusOK || resp.Header.Get("Authorization") != "" {
		t.Errorf("token request: status %d, Authorization %q", resp.StatusCode, resp.Header.Get("Authorization"))
	}
	// The token names the DID and expires.
	later := w.now.Load().Add(didwba.DefaultTokenTTL + time.Second)
	w.now.Store(&later)
	if code, err := refusal(w.get("Bearer "+tok), http.StatusUnauthorized); err != nil || code != didwba.CodeInvalidAccessToken {
		t.Errorf("expired token: code %q, %v", code, err)
	}
}

func TestAuthenticateRefuses(t *testing.T) {
	w := newWorld(t)
	signer, _ := w.agent("alice")
	header := func(s *didwba.Signer, service string) string {
		h, err := s.Header(service)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	at := func(d time.Duration) *didwba.Signer {
		s := *signer
		s.Now = func() time.Time { return w.now.Load().Add(d) }
		return &s
	}
	_, otherKey, _ := ed25519.GenerateKey(nil)
	for _, tc := range []struct {
		name   string
		setup  func() string // returns the Authorization header
		status int
		code   string
	}{
		{"replayed nonce", func() string {
			h := header(signer, "example.com")
			if resp := w.get(h); resp.StatusCode != http.StatusOK {
				t.Fatalf("first use: status %d", resp.StatusCode)
			}
			return h
		}, 401, didwba.CodeInvalidNonce},
		{"stale timestamp", func() string { return header(at(-didwba.DefaultTimestampWindow-time.Second), "example.com") }, 401, didwba.CodeInvalidTimestamp},
		{"future timestamp", func() string { return header(at(didwba.DefaultTimestampWindow+time.Second), "example.com") }, 401, didwba.CodeInvalidTimestamp},
		{"wrong key", func() string {
			s := *signer
			s.Key = otherKey
			return header(&s, "example.com")
		}, 401, didwba.CodeInvalidSignature},
		{"signed for another service", func() string { return header(signer, "other.example") }, 401, didwba.CodeInvalidSignature},
		{"document does not list the key", func() string {
			s, pub := w.agent("bob")
			id, _ := didwba.Parse(s.DID)
			doc, _ := didwba.NewDocument(s.DID, pub, "")
			doc.Authentication = nil
			w.serve(id.DocumentPath(), doc)
			return header(s, "example.com")
		}, 401, didwba.CodeInvalidVerificationMethod},
		{"unknown verification method", func() string {
			s := *signer
			s.Fragment = "key-9"
			return header(&s, "example.com")
		}, 401, didwba.CodeInvalidVerificationMethod},
		{"no DID document", func() string {
			s := *signer
			s.DID = fmt.Sprintf("did:wba:example.com%%3A%d:agents:nobody", w.port)
			return header(&s, "example.com")
		}, 401, didwba.CodeInvalidDID},
		{"document of another DID", func() string {
			s, pub := w.agent("carol")
			id, _ := didwba.Parse(s.DID)
			doc, _ := didwba.NewDocument(signer.DID, pub, "")
			w.serve(id.DocumentPath(), doc)
			return header(s, "example.com")
		}, 401, didwba.CodeInvalidDID},
		{"not a did:wba DID", func() string {
			s := *signer
			s.DID = "did:web:example.com"
			return header(&s, "example.com")
		}, 401, didwba.CodeInvalidDID},
		{"malformed header", func() string { return `DIDWba did="` + signer.DID + `", nonce="x"` }, 401, didwba.CodeInvalidRequest},
		{"bad timestamp", func() string {
			return strings.Replace(header(signer, "example.com"), `timestamp="`, `timestamp="yesterday `, 1)
		}, 401, didwba.CodeInvalidTimestamp},
		{"forged token", func() string { return "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." }, 401, didwba.CodeInvalidAccessToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := refusal(w.get(tc.setup()), tc.status)
			if err != nil || code != tc.code {
				t.Errorf("code %q, %v; want %q", code, err, tc.code)
			}
		})
	}
}

func TestAuthenticateNoCredentials(t *testing.T) {
	w := newWorld(t)
	resp := w.get("")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	if got := resp.Header.Values("WWW-Authenticate"); len(got) != 2 || got[0] != "DIDWba" || got[1] != "Bearer" {
		t.Errorf("WWW-Authenticate = %q, want the DIDWba and Bearer challenges", got)
	}
}

func TestAuthenticateForbidden(t *testing.T) {
	var allowed string
	w := newWorld(t, didwba.WithAllow(func(did string) bool { return did == allowed }))
	signer, _ := w.agent("alice")
	h, _ := signer.Header("example.com")
	if code, err := refusal(w.get(h), http.StatusForbidden); err != nil || code != didwba.CodeForbiddenDID {
		t.Errorf("code %q, %v; want forbidden_did", code, err)
	}
}

// TestNonceCacheBound: a replay cache that is full forgets its oldest
// nonce but then refuses every timestamp up to that one's, so the
// forgotten nonce cannot be replayed.
func TestNonceCacheBound(t *testing.T) {
	w := newWorld(t, didwba.WithNonceCacheSize(2))
	signer, _ := w.agent("alice")
	var first string
	for i := range 3 {
		s := *signer
		s.Now = func() time.Time { return w.now.Load().Add(time.Duration(i-3) * time.Second) }
		h, _ := s.Header("example.com")
		if i == 0 {
			first = h
		}
		if resp := w.get(h); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	if code, err := refusal(w.get(first), http.StatusUnauthorized); err != nil || code != didwba.CodeInvalidTimestamp {
		t.Errorf("replay of an evicted nonce: code %q, %v; want invalid_timestamp", code, err)
	}
}

func TestTransportUsesToken(t *testing.T) {
	w := newWorld(t)
	signer, _ := w.agent("alice")
	c := didwba.NewClient(signer, w.client)
	for i := range 3 {
		resp, err := c.Get(w.url())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != signer.DID {
			t.Fatalf("request %d: status %d, body %q", i, resp.StatusCode, body)
		}
		if i > 0 && resp.Header.Get("Authorization") != "" {
			t.Errorf("request %d authenticated with DIDWba again, not with the token", i)
		}
	}
	// A token the service no longer accepts is replaced by a DIDWba header.
	later := w.now.Load().Add(didwba.DefaultTokenTTL + time.Minute)
	w.now.Store(&later)
	resp, err := c.Get(w.url())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Authorization"), "Bearer ") {
		t.Errorf("after expiry: status %d, Authorization %q", resp.StatusCode, resp.Header.Get("Authorization"))
	}
}

func TestResolver(t *testing.T) {
	w := newWorld(t)
	signer, pub := w.agent("alice")
	r := didwba.NewResolver(didwba.WithHTTPClient(w.client))
	ctx := context.Background()
	for range 3 {
		if err := r.VerifyKey(ctx, signer.DID, pub); err != nil {
			t.Fatal(err)
		}
	}
	if n := w.fetches.Load(); n != 1 {
		t.Errorf("%d fetches for three resolutions, want 1 (cached)", n)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if err := r.VerifyKey(ctx, signer.DID, other); !errors.Is(err, didwba.ErrNoKey) {
		t.Errorf("VerifyKey of an unlisted key = %v, want ErrNoKey", err)
	}
	big, _ := w.agent("big")
	id, _ := didwba.Parse(big.DID)
	w.serve(id.DocumentPath(), map[string]string{"id": big.DID, "pad": strings.Repeat("x", didwba.MaxDocumentSize)})
	if _, err := r.Resolve(ctx, big.DID); !errors.Is(err, didwba.ErrTooLarge) {
		t.Errorf("oversized document: %v, want ErrTooLarge", err)
	}
}

func TestResolverRefusesOtherOrigin(t *testing.T) {
	w := newWorld(t)
	signer, _ := w.agent("alice")
	id, _ := didwba.Parse(signer.DID)
	plain := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		body := w.docs[id.DocumentPath()]
		w.mu.Unlock()
		rw.Write(body)
	}))
	defer plain.Close()
	redirect := httptest.NewTLSServer(http.RedirectHandler(plain.URL+id.DocumentPath(), http.StatusFound))
	defer redirect.Close()
	c := redirect.Client()
	tr := c.Transport.(*http.Transport).Clone()
	toRedirect := dialTo(redirect.Listener.Addr().String(), true)
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.HasPrefix(addr, "example.com:") {
			return toRedirect(ctx, network, addr)
		}
		return netguard.NewDialer(0, true).DialContext(ctx, network, addr)
	}
	c.Transport = tr
	r := didwba.NewResolver(didwba.WithHTTPClient(c))
	if _, err := r.Resolve(context.Background(), signer.DID); !errors.Is(err, didwba.ErrResolve) {
		t.Errorf("document redirected to plain http: %v, want ErrResolve", err)
	}
}

// TestResolverRefusesLoopback: a DID whose domain resolves to a loopback
// address is not resolved when private addresses are not allowed; the
// connection is refused before it is made, with the reason.
func TestResolverRefusesLoopback(t *testing.T) {
	w := newWorld(t)
	signer, pub := w.agent("alice")
	c := w.srv.Client()
	tr := c.Transport.(*http.Transport).Clone()
	tr.DialContext = dialTo(w.srv.Listener.Addr().String(), false) // example.com -> 127.0.0.1
	c.Transport = tr
	r := didwba.NewResolver(didwba.WithHTTPClient(c))
	err := r.VerifyKey(context.Background(), signer.DID, pub)
	if !errors.Is(err, didwba.ErrResolve) || !errors.Is(err, netguard.ErrRefused) ||
		!strings.Contains(err.Error(), "127.0.0.1 is a loopback or private address") {
		t.Errorf("DID on a loopback address: %v, want ErrResolve refusing the address", err)
	}
	if n := w.fetches.Load(); n != 0 {
		t.Errorf("%d fetches of a refused DID document, want 0", n)
	}
	if didwba.Code(err) != didwba.CodeInvalidDID {
		t.Errorf("Code = %q, want %q", didwba.Code(err), didwba.CodeInvalidDID)
	}
}

// TestResolverBounds: concurrent resolutions of one DID share one fetch;
// past the bound on concurrent fetches a resolution of another DID waits
// until its context ends and reports ErrBusy.
func TestResolverBounds(t *testing.T) {
	w := newWorld(t)
	alice, _ := w.agent("alice")
	bob, _ := w.agent("bob")
	release := make(chan struct{})
	var fetches atomic.Int64
	c := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		fetches.Add(1)
		select {
		case <-release:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		return w.client.Transport.RoundTrip(req)
	})}
	r := didwba.NewResolver(didwba.WithHTTPClient(c), didwba.WithMaxResolving(1))
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Resolve(context.Background(), alice.DID)
			errs <- err
		}()
	}
	polltest.Until(t, 10*time.Second, func() error {
		if fetches.Load() == 0 {
			return errors.New("alice's fetch has not started")
		}
		return nil
	})
	// The slot is taken by alice's fetch: bob's waits, then gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Resolve(ctx, bob.DID); !errors.Is(err, didwba.ErrBusy) {
		t.Errorf("resolution past the bound: %v, want ErrBusy", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for three concurrent resolutions of one DID, want 1", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
