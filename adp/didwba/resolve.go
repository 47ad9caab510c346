package didwba

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/internal/netguard"
)

// Resolver fetches did:wba DID documents over HTTPS (did:wba method,
// 2.5.2) and caches them. At most maxResolving fetches run at once; a
// caller waits for a slot until its context ends (then ErrBusy), and
// callers of one DID share one fetch. Safe for concurrent use; it owns
// no goroutine, so there is nothing to close.
type Resolver struct {
	client       *http.Client
	private      bool
	timeout      time.Duration
	ttl          time.Duration
	size         int
	now          func() time.Time
	slots        chan struct{}
	mu           sync.Mutex
	cache        map[string]cached
	inflight     map[string]*resolution // fetches under way, shared by their callers
	maxResolving int
}

// resolution is one fetch under way; done is closed once res is set.
type resolution struct {
	done chan struct{}
	res  cached
}

type cached struct {
	doc     *Document
	err     error
	expires time.Time
}

// ResolverOption configures a Resolver.
type ResolverOption func(*Resolver)

// WithHTTPClient fetches through c instead of the resolver's own client.
// The resolver's own client connects only to the addresses
// internal/netguard allows (see WithPrivateAddresses), after name
// resolution, uses no proxy and follows no redirect out of the DID's
// origin; c connects wherever its transport dials, so it must do the
// same checks (tests pass an httptest TLS server's client whose dialer
// is netguard's).
func WithHTTPClient(c *http.Client) ResolverOption { return func(r *Resolver) { r.client = c } }

// WithPrivateAddresses lets the resolver's own client fetch documents
// from loopback and private addresses (tests, a local network); by
// default a DID whose domain resolves to one is not resolved, so that a
// card from the network cannot make the node call into its own machine
// or network. Link-local and cloud metadata addresses stay refused.
func WithPrivateAddresses(allow bool) ResolverOption { return func(r *Resolver) { r.private = allow } }

// WithResolveTimeout bounds one fetch (default DefaultResolveTimeout).
func WithResolveTimeout(d time.Duration) ResolverOption { return func(r *Resolver) { r.timeout = d } }

// WithCache sets how long a document is reused and how many are kept
// (default DefaultCacheTTL, DefaultCacheSize). A failed resolution is
// remembered for a tenth of ttl.
func WithCache(ttl time.Duration, size int) ResolverOption {
	return func(r *Resolver) { r.ttl, r.size = ttl, size }
}

// WithMaxResolving bounds concurrent fetches (default DefaultMaxResolving).
func WithMaxResolving(n int) ResolverOption { return func(r *Resolver) { r.maxResolving = n } }

// WithResolverClock sets the time source of the cache (default time.Now).
func WithResolverClock(now func() time.Time) ResolverOption { return func(r *Resolver) { r.now = now } }

// NewResolver returns a Resolver.
func NewResolver(opts ...ResolverOption) *Resolver {
	r := &Resolver{
		timeout: DefaultResolveTimeout, ttl: DefaultCacheTTL,
		size: DefaultCacheSize, now: time.Now, maxResolving: DefaultMaxResolving,
	}
	for _, o := range opts {
		o(r)
	}
	if r.client == nil {
		r.client = guardedClient(r.timeout, r.private)
	}
	r.maxResolving = max(r.maxResolving, 1)
	r.size = max(r.size, 1)
	r.slots = make(chan struct{}, r.maxResolving)
	r.cache = make(map[string]cached)
	r.inflight = make(map[string]*resolution)
	return r
}

// Resolve returns the DID document of did, from the cache or fetched
// from the URL the DID resolves to, and checks that its id is did.
// Errors wrap ErrBadDID, ErrResolve, ErrTooLarge, ErrBadDocument or
// ErrBusy.
func (r *Resolver) Resolve(ctx context.Context, did string) (*Document, error) {
	id, err := Parse(did)
	if err != nil {
		return nil, err
	}
	for {
		r.mu.Lock()
		c, ok := r.cache[did]
		if ok && r.now().Before(c.expires) {
			r.mu.Unlock()
			return c.doc, c.err
		}
		f, ok := r.inflight[did]
		if !ok {
			f = &resolution{done: make(chan struct{})}
			r.inflight[did] = f
			r.mu.Unlock()
			f.res = r.resolve(ctx, did, id.DocumentURL())
			r.mu.Lock()
			delete(r.inflight, did)
			r.mu.Unlock()
			close(f.done)
			return f.res.doc, f.res.err
		}
		r.mu.Unlock()
		select { // another caller is fetching it: share its result
		case <-f.done:
			if !f.res.expires.IsZero() {
				return f.res.doc, f.res.err
			}
			// That caller gave up before the end: try again.
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", ErrBusy, ctx.Err())
		}
	}
}

// resolve fetches once a slot is free and caches the result, unless the
// caller gave up (then the result is not the document's fault).
func (r *Resolver) resolve(ctx context.Context, did, url string) cached {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return cached{err: fmt.Errorf("%w: %v", ErrBusy, ctx.Err())}
	}
	doc, err := r.fetch(ctx, url, did)
	<-r.slots
	c := cached{doc: doc, err: err}
	if err != nil && ctx.Err() != nil {
		return c
	}
	ttl := r.ttl
	if err != nil {
		ttl /= 10
	}
	c.expires = r.now().Add(ttl)
	r.put(did, c)
	return c
}

// fetch GETs and decodes one DID document.
func (r *Resolver) fetch(ctx context.Context, url, did string) (*Document, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrResolve, err)
	}
	req.Header.Set("Accept", "application/did+json, application/json")
	resp, err := r.client.Do(req)
	var ae *netguard.AddrError
	switch {
	case errors.As(err, &ae):
		return nil, fmt.Errorf("%w: GET %s: %w", ErrResolve, url, ae)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrResolve, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: status %d", ErrResolve, url, resp.StatusCode)
	}
	// A redirect may not leave the DID's https origin: the document's
	// authority is that origin's TLS certificate.
	if final := resp.Request.URL; final.Scheme != "https" || !strings.EqualFold(final.Host, req.URL.Host) {
		return nil, fmt.Errorf("%w: GET %s was redirected to another origin", ErrResolve, url)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %v", ErrResolve, url, err)
	}
	return ParseDocument(body, did)
}

// guardedClient is the resolver's own HTTP client: connections only to
// the addresses netguard allows (checked after name resolution), no
// proxy (whose address would be checked instead), and redirects only
// within the https origin of the first request.
func guardedClient(timeout time.Duration, private bool) *http.Client {
	tr := netguard.NewTransport(timeout, private)
	tr.MaxIdleConnsPerHost = 2
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: sameOrigin}
}

// maxRedirects bounds the redirects of one fetch.
const maxRedirects = 5

// sameOrigin is the CheckRedirect of the resolver's own client: a
// redirect may not leave the https origin of the first request.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "https" || !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		return fmt.Errorf("redirected to another origin (%s)", req.URL.Redacted())
	}
	return nil
}

// put caches one result, dropping expired entries, then any, when full.
func (r *Resolver) put(did string, c cached) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cache[did]; !ok && len(r.cache) >= r.size {
		now := r.now()
		for k, v := range r.cache {
			if !now.Before(v.expires) {
				delete(r.cache, k)
			}
		}
		for k := range r.cache {
			if len(r.cache) < r.size {
				break
			}
			delete(r.cache, k)
		}
	}
	r.cache[did] = c
}

// VerifyKey is the domain check of a card whose did is a did:wba DID:
// nil when the DID document resolves and lists pub under authentication.
// The document comes from the cache when it can; otherwise the fetch
// waits for a slot among the bounded concurrent ones until ctx ends
// (ErrBusy). A document that does not list pub gives ErrNoKey.
func (r *Resolver) VerifyKey(ctx context.Context, did string, pub ed25519.PublicKey) error {
	doc, err := r.Resolve(ctx, did)
	if err != nil {
		return err
	}
	if !doc.ListsKey(pub) {
		return fmt.Errorf("%w: the DID document of %s does not list the key", ErrNoKey, did)
	}
	return nil
}
