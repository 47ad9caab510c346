package publichttp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/netutil"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/aicatalog"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/node/webui"
	"github.com/adpnode/adpnode/node/wellknown"
	"github.com/adpnode/adpnode/store"
)

// Service is what the public server reads; package node implements it.
// Every method answers from what the node holds: none reaches out to the
// network.
type Service interface {
	wellknown.Source
	Status() nodeapi.Status
	PeerInfos() []nodeapi.PeerInfo
	// CardPage lists at most limit held cards from offset in agent id
	// order, and how many are held; HeldCard finds one held card
	// (store.ErrNotFound when there is none).
	CardPage(ctx context.Context, offset, limit int) ([]*store.Record, int, error)
	HeldCard(ctx context.Context, agentID string) (*store.Record, error)
	// Discover ranks agents; the server asks scope "local" only.
	Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error)
}

// Server is the public HTTP server. Safe for concurrent use.
type Server struct {
	http          *http.Server
	maxConns      int
	perIP, perNet int
	trusted       func(netip.Addr) bool // nil: no trusted proxy
	metrics       *ratelimit.Metrics
}

// New returns the public server of svc; Serve starts it.
func New(svc Service, opts ...Option) (*Server, error) {
	cfg := newConfig(opts)
	m, err := ratelimit.NewMetrics(cfg.reg)
	if err != nil {
		return nil, err
	}
	h, err := newHandler(svc, cfg, m)
	if err != nil {
		return nil, err
	}
	var trusted func(netip.Addr) bool
	if len(cfg.trusted) > 0 {
		trusted = cfg.trustedProxy
		h = fromProxies(h, trusted)
	}
	return &Server{
		http: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: readHeaderTimeout,
			ReadTimeout:       readTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    MaxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(cfg.log.Handler(), slog.LevelDebug),
		},
		maxConns: cfg.maxConns,
		perIP:    cfg.perIP,
		perNet:   cfg.perNet,
		trusted:  trusted,
		metrics:  m,
	}, nil
}

// Serve accepts connections on ln, at most the configured number open at
// once (further clients wait in the kernel's accept queue) and at most
// the configured numbers from one source IP and one source network (a
// further connection from there is closed as it is accepted), until
// Shutdown or Close (then it returns http.ErrServerClosed).
func (s *Server) Serve(ln net.Listener) error {
	l := ratelimit.LimitSources(netutil.LimitListener(ln, s.maxConns), s.perIP, s.perNet, true, s.metrics)
	if s.trusted != nil {
		l.Exempt(s.trusted)
	}
	return s.http.Serve(l)
}

// fromProxies hands next a request from a trusted proxy as coming from
// the client the proxy names (RemoteAddr rewritten, port 0), so that every
// per-source bound behind it charges that client.
func fromProxies(next http.Handler, trusted func(netip.Addr) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peer := ratelimit.SourceIP(r); peer.IsValid() && trusted(peer) {
			if client, ok := ratelimit.ForwardedFor(r, trusted); ok {
				r = r.WithContext(r.Context())
				r.RemoteAddr = netip.AddrPortFrom(client, 0).String()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Shutdown stops accepting and waits, until ctx ends, for the requests in
// flight (see http.Server.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// Close closes the listener and every connection at once. Idempotent.
func (s *Server) Close() error { return s.http.Close() }

// Handler returns the server's handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.http.Handler }

// handler holds the routes' dependencies.
type handler struct {
	svc      Service
	docs     *wellknown.Docs
	url      string // configured base URL, "" = from the Host header
	discover *ratelimit.Guard
	searches chan struct{} // one token per discovery running
	log      *slog.Logger
	a2a      bool // an A2A server answers at POST httpapi.A2APath
}

func newHandler(svc Service, cfg config, m *ratelimit.Metrics) (http.Handler, error) {
	if cfg.url != "" {
		if err := CheckURL(cfg.url); err != nil {
			return nil, err
		}
	}
	h := &handler{
		svc: svc, docs: wellknown.New(svc), url: strings.TrimRight(cfg.url, "/"), log: cfg.log,
		discover: ratelimit.NewGuard(ratelimit.GuardPublicDiscover, cfg.discoverLimits, m, cfg.now),
		searches: make(chan struct{}, cfg.maxSearches),
		a2a:      cfg.a2a != nil,
	}
	mux := http.NewServeMux()
	for _, p := range wellknown.Paths() {
		mux.HandleFunc("GET "+p, h.wellKnown)
	}
	mux.HandleFunc("GET "+wellknown.DescriptionPattern, h.description)
	if cfg.a2a != nil {
		mux.Handle("POST "+httpapi.A2APath, cfg.a2a)
	}
	if cfg.didPath != "" && cfg.didDoc != nil {
		mux.Handle("GET "+cfg.didPath, cfg.didDoc)
	}
	if cfg.catalog != nil {
		mux.Handle("GET "+aicatalog.WellKnownPath, cfg.catalog)
		mux.Handle("POST "+aicatalog.SearchPath, h.limitDiscover(cfg.catalog, aicatalog.WriteRateLimited, aicatalog.WriteBusy))
	}
	ui := webui.Handler(webui.ReadOnly(ViewPrefix))
	mux.Handle("GET /{$}", ui)
	mux.Handle("GET "+webui.AssetPrefix, ui)
	mux.HandleFunc("GET "+ViewPrefix+"/v1/status", h.status)
	mux.HandleFunc("GET "+ViewPrefix+"/v1/peers", h.peers)
	mux.HandleFunc("GET "+ViewPrefix+"/v1/cards", h.cards)
	mux.HandleFunc("GET "+ViewPrefix+"/v1/cards/{id}", h.card)
	mux.Handle("GET "+ViewPrefix+"/v1/discover", h.limitDiscover(http.HandlerFunc(h.discoverAgents), writeTooMany, writeBusy))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, httpapi.NewError(http.StatusNotFound, "no such document: "+r.URL.Path))
	})
	all := ratelimit.NewGuard(ratelimit.GuardPublicHTTP, cfg.limits, m, cfg.now)
	var posts []string // the only routes that are not read-only
	if cfg.a2a != nil {
		posts = append(posts, httpapi.A2APath)
	}
	if cfg.catalog != nil {
		posts = append(posts, aicatalog.SearchPath)
	}
	return guard(mux, all, posts, cfg.log), nil
}

// CheckURL reports whether u can be a WithURL value: an absolute http or
// https URL without query or fragment (ErrBadURL otherwise).
func CheckURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
		return fmt.Errorf("%w: %q", ErrBadURL, u)
	}
	return nil
}

// guard is what every request passes first: GET or HEAD only (and POST
// to the paths of posts: the A2A server, the catalog search), a bounded
// query, the source's rate limit, then the headers every answer carries.
func guard(next http.Handler, g *ratelimit.Guard, posts []string, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		post := r.Method == http.MethodPost && slices.Contains(posts, r.URL.Path)
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !post {
			h.Set("Allow", "GET, HEAD")
			httpapi.WriteError(w, httpapi.NewError(http.StatusMethodNotAllowed, r.Method+" not allowed: this server is read-only"))
			return
		}
		if len(r.URL.RawQuery) > MaxQueryBytes {
			httpapi.WriteError(w, httpapi.NewError(http.StatusRequestURITooLong, fmt.Sprintf("query longer than %d bytes", MaxQueryBytes)))
			return
		}
		ip := ratelimit.SourceIP(r)
		if ok, wait, scope := g.Allow(ip.String(), ip); !ok {
			log.Debug("public http: rate limited", "peer", ip.String(), "scope", scope)
			refuse(w, wait)
			return
		}
		h.Set("Access-Control-Allow-Origin", "*")
		next.ServeHTTP(w, r)
	})
}

// limitDiscover charges a request to the discovery rate limit before
// next runs it (tooMany answers a refusal), and runs it only while fewer
// than the configured number of discoveries run (busy answers past it).
func (h *handler) limitDiscover(next http.Handler, tooMany, busy func(http.ResponseWriter)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := ratelimit.SourceIP(r)
		if ok, wait, _ := h.discover.Allow(ip.String(), ip); !ok {
			ratelimit.SetRetryAfter(w.Header(), wait)
			tooMany(w)
			return
		}
		select {
		case h.searches <- struct{}{}:
			defer func() { <-h.searches }()
		default:
			ratelimit.SetRetryAfter(w.Header(), time.Second)
			busy(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers 429 with the whole seconds until a retry can pass.
func refuse(w http.ResponseWriter, wait time.Duration) {
	ratelimit.SetRetryAfter(w.Header(), wait)
	writeTooMany(w)
}

// writeBusy answers 503 in the API's error shape: every discovery slot is
// taken.
func writeBusy(w http.ResponseWriter) {
	httpapi.WriteError(w, httpapi.NewError(http.StatusServiceUnavailable, "too many discoveries running at once; retry shortly"))
}

// writeTooMany answers 429 in the API's error shape.
func writeTooMany(w http.ResponseWriter) {
	httpapi.WriteError(w, httpapi.NewError(http.StatusTooManyRequests, "too many requests from your address"))
}
