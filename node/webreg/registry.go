package webreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/internal/netguard"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/discovery"
)

// Formats of a registered document.
const (
	FormatA2A = "a2a"
	FormatANP = "anp"
)

// Verification words of Registration.Verified and the search results.
const (
	VerifiedJWS    = "jws"
	VerifiedDIDWba = "did:wba"
)

// Registration is what Register indexed.
type Registration struct {
	URL    string `json:"url"`
	Format string `json:"format"`
	Name   string `json:"name"`
	// Signed is whether a signature vouches for the document: an A2A
	// card's JWS whose key is KeyID (an agent id). No web card is signed
	// by an adpnode key over its ADP form: Provenance is always "web".
	Signed     bool     `json:"signed"`
	KeyID      string   `json:"key_id,omitempty"`
	Verified   []string `json:"verified,omitempty"`
	Provenance string   `json:"provenance"`
	// Replaced is set when the URL was registered before.
	Replaced  bool      `json:"replaced,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Registry holds the web registrations of a directory. Safe for
// concurrent use.
type Registry struct {
	cfg   config
	hc    *http.Client
	guard *ratelimit.Guard
	sem   chan struct{}
	idx   *discovery.Discovery

	mu      sync.Mutex
	entries map[string]*Registration // by URL, which is the index id
}

// New returns an empty Registry.
func New(opts ...Option) (*Registry, error) {
	cfg := newConfig(opts)
	idx, err := discovery.New(discovery.WithClock(cfg.now), discovery.WithLogger(cfg.log))
	if err != nil {
		return nil, err
	}
	tr := netguard.NewTransport(FetchTimeout, cfg.private) // no proxy: the policy applies to the document's host
	tr.MaxIdleConnsPerHost, tr.IdleConnTimeout = 1, 30*time.Second
	hc := &http.Client{
		Timeout:       FetchTimeout,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
	}
	return &Registry{
		cfg: cfg, hc: hc, idx: idx,
		guard:   ratelimit.NewGuard("web_register", cfg.limits, nil, cfg.now),
		sem:     make(chan struct{}, MaxConcurrentFetches),
		entries: make(map[string]*Registration),
	}, nil
}

var errRedirect = errors.New("redirect refused")

// Close releases idle connections. Idempotent.
func (r *Registry) Close() error {
	r.hc.CloseIdleConnections()
	return nil
}

// Len returns the registrations held (expired ones included until the
// next Register).
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// Register fetches the document at rawURL for requester (a stable key,
// such as the source IP, arriving from addr) and indexes it; see the
// package doc for the steps. Refusals wrap the package's sentinel errors
// (ErrRefusedURL wraps netguard.ErrRefused as well).
func (r *Registry) Register(ctx context.Context, rawURL, requester string, addr netip.Addr) (*Registration, error) {
	if ok, wait, _ := r.guard.Allow(requester, addr); !ok { // 1
		return nil, &RateError{RetryAfter: wait}
	}
	u, err := netguard.CheckURL(strings.TrimSpace(rawURL), r.cfg.private) // 2
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefusedURL, err)
	}
	docURL := u.String()
	body, err := r.fetch(ctx, docURL) // 3
	if err != nil {
		return nil, err
	}
	reg, card, err := r.read(ctx, docURL, body) // 4-7
	if err != nil {
		r.cfg.log.Debug("web registration refused", "err", err)
		return nil, err
	}
	return r.keep(reg, card) // 8
}

// fetch gets the document, bounded in time, size and concurrency.
func (r *Registry) fetch(ctx context.Context, docURL string) ([]byte, error) {
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrFetch, ctx.Err())
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, docURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefusedURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		var ae *netguard.AddrError
		switch {
		case errors.As(err, &ae):
			return nil, fmt.Errorf("%w: %w", ErrRefusedURL, ae)
		case errors.Is(err, errRedirect):
			return nil, fmt.Errorf("%w: %s redirected the request (register the final URL)", ErrFetch, docURL)
		}
		return nil, fmt.Errorf("%w: %s is not reachable: %v", ErrFetch, docURL, reason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrFetch, docURL, resp.StatusCode)
	}
	if resp.ContentLength > MaxDocBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, resp.ContentLength, MaxDocBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrFetch, docURL, reason(err))
	}
	if len(body) > MaxDocBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, MaxDocBytes)
	}
	return body, nil
}

// reason is the innermost cause of a transport error, without the layers
// of the HTTP client around it.
func reason(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// read detects the format, verifies and converts the document.
func (r *Registry) read(ctx context.Context, docURL string, body []byte) (*Registration, *adp.Card, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, nil, fmt.Errorf("%w: not a JSON object", ErrFormat)
	}
	reg := &Registration{URL: docURL, Provenance: aicatalog.ProvenanceWeb}
	var card *adp.Card
	var err error
	if _, ok := probe["@context"]; ok || probe["@type"] != nil { // 4
		reg.Format = FormatANP
		card, err = bridge.FromANP(body)
	} else {
		reg.Format = FormatA2A
		kid, verr := bridge.VerifyA2A(body, nil) // 5
		switch {
		case verr == nil:
			reg.Signed, reg.KeyID, reg.Verified = true, kid, []string{VerifiedJWS}
		case !errors.Is(verr, bridge.ErrA2AUnsigned):
			return nil, nil, fmt.Errorf("%w: %w", ErrSignature, verr)
		}
		card, err = bridge.FromA2A(body) // 6
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if card.Name == "" {
		return nil, nil, fmt.Errorf("%w: the document names no agent", ErrFormat)
	}
	if reg.KeyID != "" && strings.HasPrefix(card.DID, didwba.Prefix) && r.cfg.didCheck != nil { // 7
		c := *card
		c.ID = reg.KeyID
		if r.cfg.didCheck(ctx, &c) {
			reg.Verified = append(reg.Verified, VerifiedDIDWba)
		}
	}
	reg.Name = card.Name
	card.ID = docURL // the index id: one entry per URL
	return reg, card, nil
}

// keep indexes card under its URL, within the cap.
func (r *Registry) keep(reg *Registration, card *adp.Card) (*Registration, error) {
	now := r.cfg.now()
	reg.ExpiresAt = now.Add(r.cfg.ttl)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(now)
	_, reg.Replaced = r.entries[reg.URL]
	if !reg.Replaced && len(r.entries) >= r.cfg.maxCards {
		return nil, fmt.Errorf("%w: %d registrations held", ErrFull, len(r.entries))
	}
	if err := r.idx.Put(card, now, reg.ExpiresAt); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	r.entries[reg.URL] = reg
	out := *reg
	return &out, nil
}

// expire forgets the registrations whose time ran out; r.mu is held.
func (r *Registry) expire(now time.Time) {
	for u, e := range r.entries {
		if !e.ExpiresAt.After(now) {
			delete(r.entries, u)
		}
	}
	r.idx.Expire(now)
}

// Discover ranks the registered cards (aicatalog.Source).
func (r *Registry) Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	return r.idx.Discover(ctx, req)
}

// Origin is the provenance of a registered card (aicatalog.Source).
func (r *Registry) Origin(id string) aicatalog.Origin {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := aicatalog.Origin{Provenance: aicatalog.ProvenanceWeb, URL: id, MediaType: aicatalog.MediaA2ACard}
	if e, ok := r.entries[id]; ok {
		o.Verified = e.Verified // a web card is never signed by an adpnode key: Signed stays false
		if e.Format == FormatANP {
			o.MediaType = aicatalog.MediaANPDescription
		}
	}
	return o
}

// Registrations lists what is held, in no particular order.
func (r *Registry) Registrations() []Registration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Registration, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, *e)
	}
	return out
}

var _ aicatalog.Source = (*Registry)(nil)
