package aicatalog

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// DefaultSearchTimeout bounds one search; past it the answer is 504.
const DefaultSearchTimeout = 10 * time.Second

// Self is what the manifest says of the directory itself.
type Self struct {
	// Name and Description of the node's own agent (its card's).
	Name, Description string
	// AgentID is the node's own agent id.
	AgentID string
}

// Option configures a Handler.
type Option func(*config)

type config struct {
	url     string
	log     *slog.Logger
	timeout time.Duration
}

// WithURL sets the base URL the manifest's entries link to (default:
// http:// and the Host of each request).
func WithURL(u string) Option { return func(c *config) { c.url = strings.TrimRight(u, "/") } }

// WithLogger sets the logger of failed searches (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithSearchTimeout sets the bound of one search (default
// DefaultSearchTimeout).
func WithSearchTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Handler serves GET WellKnownPath and POST SearchPath from sources.
type Handler struct {
	self    func() Self
	sources []Source
	cfg     config
}

// NewHandler returns the handler of both routes: self describes the
// directory (called per request: the card may change), sources are
// searched in order.
func NewHandler(self func() Self, sources []Source, opts ...Option) *Handler {
	cfg := config{log: slog.New(slog.DiscardHandler), timeout: DefaultSearchTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = DefaultSearchTimeout
	}
	return &Handler{self: self, sources: sources, cfg: cfg}
}

// ServeHTTP routes by path; a method other than GET/HEAD on the manifest
// or POST on the search is 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == WellKnownPath && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		h.catalog(w, r)
	case r.URL.Path == SearchPath && r.Method == http.MethodPost:
		h.search(w, r)
	case r.URL.Path == WellKnownPath || r.URL.Path == SearchPath:
		w.Header().Set("Allow", map[bool]string{true: "GET, HEAD", false: "POST"}[r.URL.Path == WellKnownPath])
		writeError(w, http.StatusMethodNotAllowed, ErrorBody{ErrorCode: CodeInvalidArgument, Message: r.Method + " not allowed"})
	default:
		writeError(w, http.StatusNotFound, ErrorBody{ErrorCode: CodeNotFound, Message: "no such document: " + r.URL.Path})
	}
}

func (h *Handler) base(r *http.Request) string {
	if h.cfg.url != "" {
		return h.cfg.url
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// NewCatalog is the manifest of a directory reached at base: its own agent's
// A2A card and the registry entry whose url is the search base (§7).
func NewCatalog(self Self, base string) *Catalog {
	host := hostOf(base)
	return &Catalog{
		SpecVersion: SpecVersion,
		Host:        &HostInfo{DisplayName: self.Name, Identifier: host},
		Entries: []Entry{
			{
				Identifier:  Identifier(host, "adpnode", self.AgentID),
				DisplayName: self.Name,
				Type:        MediaA2ACard,
				URL:         base + "/.well-known/agent-card.json",
				Description: self.Description,
			},
			{
				Identifier:  Identifier(host, "registry", "search"),
				DisplayName: self.Name + " directory",
				Type:        MediaRegistry,
				URL:         base + "/",
				Description: "Agents this adpnode directory holds, searched with POST " + SearchPath + ".",
				Tags:        []string{"registry", "search"},
			},
		},
	}
}

func (h *Handler) catalog(w http.ResponseWriter, r *http.Request) {
	b, err := json.Marshal(NewCatalog(h.self(), h.base(r)))
	if err != nil {
		writeError(w, http.StatusInternalServerError, errorBody(err))
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, b)
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, ErrorBody{ErrorCode: CodeInvalidArgument, Message: "the request body could not be read"})
		return
	}
	req, err := ParseSearchRequest(body)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, ErrTooLarge) {
			status = http.StatusRequestEntityTooLarge
		}
		writeError(w, status, errorBody(err))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.timeout)
	defer cancel()
	resp, err := Results(ctx, req, hostOf(h.base(r)), h.sources...)
	if err != nil {
		h.cfg.log.Debug("ai catalog search failed", "err", err)
		status := http.StatusInternalServerError
		if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
			status = http.StatusGatewayTimeout // the search's own bound, not the client's
		}
		writeError(w, status, errorBody(err))
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		writeError(w, http.StatusInternalServerError, errorBody(err))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, b)
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// WriteRateLimited answers 429 with the draft's error object
// (RATE_LIMIT_EXCEEDED), for a server that refuses a search by its rate
// limit; the caller sets Retry-After.
func WriteRateLimited(w http.ResponseWriter) {
	writeError(w, http.StatusTooManyRequests, ErrorBody{ErrorCode: CodeRateLimitExceeded, Message: "too many requests from your address"})
}

// WriteBusy answers 503 with RATE_LIMIT_EXCEEDED: the server runs as
// many searches as it takes at once (a limit on all clients together).
func WriteBusy(w http.ResponseWriter) {
	writeError(w, http.StatusServiceUnavailable, ErrorBody{ErrorCode: CodeRateLimitExceeded, Message: "too many searches running at once; retry shortly"})
}

func writeError(w http.ResponseWriter, status int, e ErrorBody) {
	b, _ := json.Marshal(e) // strings only: cannot fail
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, b)
}
