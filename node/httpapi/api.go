package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/webreg"
	"github.com/adpnode/adpnode/node/webui"
	"github.com/adpnode/adpnode/node/wellknown"
)

// HTTP API limits.
const (
	// MaxAPIBody bounds every request body of the HTTP API.
	MaxAPIBody = 1 << 20
	// apiReadHeaderTimeout and apiIdleTimeout bound slow clients.
	apiReadHeaderTimeout = 5 * time.Second
	apiReadTimeout       = 30 * time.Second // a whole request, body included
	apiIdleTimeout       = time.Minute
	apiMaxHeaderBytes    = 64 << 10
	// apiCallTimeout bounds a request that reaches the network.
	apiCallTimeout = 30 * time.Second
	// DefaultInvokeTimeout is an invoke's deadline when it names none.
	DefaultInvokeTimeout = apiCallTimeout
	// MaxInvokeTimeoutMS is the largest timeout_ms an invoke accepts
	// (10 minutes). The called agent's own handler deadline may end the
	// call sooner.
	MaxInvokeTimeoutMS = 600000
	// MaxArrivalAgents bounds the agent parameters of GET /v1/arrivals.
	MaxArrivalAgents = 256
)

// NDJSON is the content type of a streamed answer, one JSON value a line.
const NDJSON = "application/x-ndjson"

// IsLoopbackName reports whether host (no port, brackets allowed) names
// this machine: localhost or a loopback IP. The API answers only requests
// addressed to such a name, and listens only on one.
func IsLoopbackName(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewHandler returns the HTTP API of svc and the web view (package
// webui, at "/"): routes, then the guards every request passes (loopback
// Host, no cross-site browser requests, JSON bodies, bounded size).
func NewHandler(svc Service, opts ...Option) http.Handler {
	return newHandler(svc, newConfig(opts))
}

func newHandler(svc Service, cfg config) http.Handler {
	if cfg.streams == nil {
		cfg.streams = newStreams(cfg.heartbeat)
	}
	a := &api{n: svc, streams: cfg.streams, docs: wellknown.New(svc), a2a: cfg.a2a != nil}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/card", a.getCard)
	mux.HandleFunc("PUT /v1/card", a.putCard)
	mux.HandleFunc("GET /v1/cards", a.listCards)
	mux.HandleFunc("POST /v1/discover", a.discover)
	mux.HandleFunc("POST /v1/describe", a.describe)
	mux.HandleFunc("POST /v1/invoke", a.invoke)
	mux.HandleFunc("POST /v1/ratings", a.rate)
	mux.HandleFunc("POST /v1/advertise", a.advertise)
	mux.HandleFunc("GET /v1/peers", a.peers)
	mux.HandleFunc("GET /v1/status", a.status)
	mux.HandleFunc("GET /v1/arrivals", a.arrivals)
	mux.HandleFunc("GET /v1/network", a.network)
	mux.HandleFunc("GET /v1/events", a.events)
	ui := webui.Handler()
	mux.Handle("GET /{$}", ui)
	mux.Handle("GET "+webui.AssetPrefix, ui)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeAPIJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.Handle("GET /metrics", cfg.metrics)
	for _, path := range wellknown.Paths() {
		mux.HandleFunc("GET "+path, a.wellKnown)
	}
	mux.HandleFunc("GET "+wellknown.DescriptionPattern, a.anpDescription)
	if cfg.mcp != nil {
		mux.Handle(MCPPath, cfg.mcp)
	}
	if cfg.didPath != "" && cfg.didDoc != nil {
		mux.Handle("GET "+cfg.didPath, cfg.didDoc)
	}
	if cfg.a2a != nil {
		mux.Handle("POST "+A2APath, cfg.a2a)
	}
	if cfg.catalog != nil {
		mux.Handle("GET "+aicatalog.WellKnownPath, cfg.catalog)
		mux.Handle("POST "+aicatalog.SearchPath, cfg.catalog)
	}
	if cfg.webReg != nil {
		mux.Handle("POST "+webreg.RegisterPath, cfg.webReg)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPost} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeAPIError(w, &Error{Status: http.StatusMethodNotAllowed, Code: codeInvalidRequest, Message: r.Method + " not allowed on " + r.URL.Path})
			return
		}
		writeAPIError(w, &Error{Status: http.StatusNotFound, Code: codeNotFound, Message: "no such endpoint: " + r.Method + " " + r.URL.Path})
	})
	return guard(cardsByID(a, mux), cfg.log)
}

// NewServer returns an HTTP server of NewHandler(svc, opts...) with the
// API's bounds on slow clients and header size.
func NewServer(svc Service, opts ...Option) *http.Server {
	cfg := newConfig(opts)
	cfg.streams = newStreams(cfg.heartbeat)
	srv := &http.Server{
		Handler:           newHandler(svc, cfg),
		ReadHeaderTimeout: apiReadHeaderTimeout,
		ReadTimeout:       apiReadTimeout,
		IdleTimeout:       apiIdleTimeout,
		MaxHeaderBytes:    apiMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(cfg.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return cfg.baseCtx },
	}
	srv.RegisterOnShutdown(cfg.streams.close) // Shutdown waits for no event stream
	return srv
}

// cardsPath is the prefix of GET /v1/cards/{id}.
const cardsPath = "/v1/cards/"

// cardsByID serves GET /v1/cards/{id} ahead of mux, whose path cleaning
// would fold the "//" of "agent://k51..." and redirect: the id is read
// from the escaped path, so agent://k51..., its URL-encoded forms, a bare
// k51... and a base58 12D3KooW... all reach the handler as sent.
func cardsByID(a *api, mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), cardsPath)
		if !ok || rest == "" {
			mux.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			writeAPIError(w, &Error{Status: http.StatusMethodNotAllowed, Code: codeInvalidRequest, Message: r.Method + " not allowed on " + cardsPath + "{id}"})
			return
		}
		a.getCardByID(w, r, rest)
	})
}

// guard refuses what a web page could make a browser send to a loopback
// port (DNS rebinding, cross-site form posts) and bounds request bodies.
func guard(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !IsLoopbackName(host) {
			log.Debug("api: refused host", "host", r.Host)
			writeAPIError(w, &Error{Status: http.StatusForbidden, Code: codeForbidden, Message: "Host must be a loopback name (127.0.0.1, [::1] or localhost)"})
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			writeAPIError(w, &Error{Status: http.StatusForbidden, Code: codeForbidden, Message: "cross-site requests are refused"})
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			writeAPIError(w, &Error{Status: http.StatusForbidden, Code: codeForbidden, Message: "requests from web pages are refused"})
			return
		}
		if r.Method == http.MethodPost || r.Method == http.MethodPut {
			if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
				writeAPIError(w, &Error{Status: http.StatusUnsupportedMediaType, Code: codeInvalidRequest, Message: "Content-Type must be application/json"})
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxAPIBody)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether an Origin header names a page served
// from this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && IsLoopbackName(u.Hostname())
}

func writeAPIJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIRaw(w, status, "application/json", b)
}

func writeAPIRaw(w http.ResponseWriter, status int, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

func writeAPIError(w http.ResponseWriter, err error) {
	e := withCorrelation(ErrorOf(err))
	w.Header().Set(CorrelationHeader, e.CorrelationID)
	if (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	b, _ := json.Marshal(e)
	writeAPIRaw(w, e.Status, "application/json", b)
}

// decodeJSON reads a JSON object from r's body into v. Unknown fields,
// trailing data and type mismatches are errors naming the JSON path.
func decodeJSON(r *http.Request, v any) error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err)
	}
	return decodeJSONBytes(raw, v)
}

// bodyError reports a failure to read a request body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest, Message: fmt.Sprintf("body larger than %d bytes", MaxAPIBody)}
	}
	return badRequestf("", "reading body: %v", err)
}

func decodeJSONBytes(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest(jsonerr.Describe(err))
	}
	if !jsonerr.AtEnd(dec) {
		return badRequest("", "trailing data after the JSON object")
	}
	return nil
}

// callContext bounds a request that reaches the network.
func callContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), apiCallTimeout)
}

// withCorrelation returns e with a correlation id, a copy when it had
// none (ErrorOf may return an *Error the service built).
func withCorrelation(e *Error) *Error {
	if e.CorrelationID != "" {
		return e
	}
	c := *e
	c.CorrelationID = newCorrelationID()
	return &c
}
