package publichttp

import (
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

// Server limits and defaults.
const (
	// MaxHeaderBytes bounds a request's header block; larger requests are
	// refused with 431.
	MaxHeaderBytes = 8 << 10
	// DefaultMaxConns caps the connections open at once; further clients
	// wait in the kernel's accept queue.
	DefaultMaxConns = 256
	// DefaultMaxConnsPerIP and DefaultMaxConnsPerNetwork cap the
	// connections one source IP address and one source network (IPv4
	// /24, IPv6 /48; loopback addresses not counted in one) keep open:
	// a browser opens about 6, and one source cannot hold every slot.
	DefaultMaxConnsPerIP      = 32
	DefaultMaxConnsPerNetwork = 64
	// MaxQueryBytes bounds the raw query of any request (414 above).
	MaxQueryBytes = 2048
	// MaxListParams bounds the values of one repeated query parameter.
	MaxListParams = 16
	// MaxDiscoverLimit bounds the limit of a discovery.
	MaxDiscoverLimit = 50
	// MaxViewCards bounds one page of held cards.
	MaxViewCards = 500
	// MinSearches is the least DefaultMaxSearches can be.
	MinSearches = 2

	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = time.Minute
	discoverTimeout   = 10 * time.Second
)

// Default rate limits. A page load is the page, its modules and style
// sheet and three view requests (about 13), so a source IP gets a burst
// of 60 and 10 a second; a network (IPv4 /24, IPv6 /48: many readers
// behind one NAT) five times that. A discovery ranks every held card, so
// it has a budget of its own as well.
var (
	DefaultLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 10, Burst: 60},
		Network: ratelimit.Rate{PerSecond: 50, Burst: 300},
	}
	DefaultDiscoverLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 1, Burst: 10},
		Network: ratelimit.Rate{PerSecond: 5, Burst: 50},
	}
)

// Option configures a Server.
type Option func(*config)

type config struct {
	log            *slog.Logger
	url            string
	limits         ratelimit.Config
	discoverLimits ratelimit.Config
	maxConns       int
	perIP, perNet  int
	maxSearches    int
	trusted        []netip.Prefix // reverse proxies whose X-Forwarded-For is read
	reg            prometheus.Registerer
	now            func() time.Time
	a2a            http.Handler // POST httpapi.A2APath; nil = read-only
	catalog        http.Handler // GET aicatalog.WellKnownPath, POST aicatalog.SearchPath
	didPath        string       // GET path of didDoc
	didDoc         http.Handler
}

func newConfig(opts []Option) config {
	c := config{
		log:            slog.New(slog.DiscardHandler),
		limits:         DefaultLimits,
		discoverLimits: DefaultDiscoverLimits,
		maxConns:       DefaultMaxConns,
		perIP:          DefaultMaxConnsPerIP,
		perNet:         DefaultMaxConnsPerNetwork,
		maxSearches:    DefaultMaxSearches(),
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithLogger sets the logger (default: discard). Refused requests are
// logged at Debug.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithURL sets the base URL clients reach the server at (for example
// https://agents.example.com behind a TLS proxy), which the documents
// link to; default: http:// and the Host of each request.
func WithURL(u string) Option { return func(c *config) { c.url = u } }

// WithLimits sets the rate limits of every request and of discoveries
// (defaults DefaultLimits, DefaultDiscoverLimits).
func WithLimits(all, discover ratelimit.Config) Option {
	return func(c *config) { c.limits, c.discoverLimits = all, discover }
}

// WithA2A serves h (the node's a2aserver.Server, possibly behind DIDWba
// authentication) at POST httpapi.A2APath, the one route of the server
// that is not read-only, and names it in the A2A card it serves
// (default: none, every route read-only).
func WithA2A(h http.Handler) Option { return func(c *config) { c.a2a = h } }

// WithCatalog serves h (a directory's aicatalog.Handler) at GET
// aicatalog.WellKnownPath and POST aicatalog.SearchPath; a search is a
// discovery, charged to the discovery rate limit as well as the
// server's, and its body is bounded by the handler (aicatalog.MaxBodyBytes).
// Default: none.
func WithCatalog(h http.Handler) Option { return func(c *config) { c.catalog = h } }

// WithDIDDocument serves the DID document h at GET path (the path the
// agent's did:wba DID resolves to; default: none).
func WithDIDDocument(path string, h http.Handler) Option {
	return func(c *config) { c.didPath, c.didDoc = path, h }
}

// WithMaxConns caps the open connections (default DefaultMaxConns;
// values below 1 are ignored).
func WithMaxConns(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxConns = n
		}
	}
}

// WithMaxSourceConns caps the connections one source IP address and one
// source network keep open (default DefaultMaxConnsPerIP and
// DefaultMaxConnsPerNetwork; values below 1 are ignored). A connection
// past a cap is closed as it is accepted.
func WithMaxSourceConns(perIP, perNetwork int) Option {
	return func(c *config) {
		if perIP > 0 {
			c.perIP = perIP
		}
		if perNetwork > 0 {
			c.perNet = perNetwork
		}
	}
}

// DefaultMaxSearches is how many discoveries (the view's and the catalog
// search's) run at once from all sources together: one a core, at least
// MinSearches. A discovery ranks every held card on the CPU, so more at
// once only queue; past it a request is answered 503 with Retry-After.
func DefaultMaxSearches() int { return max(MinSearches, runtime.GOMAXPROCS(0)) }

// WithMaxSearches sets how many discoveries run at once (default
// DefaultMaxSearches(); values below 1 are ignored).
func WithMaxSearches(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSearches = n
		}
	}
}

// WithTrustedProxies names the reverse proxies in front of the server
// (default none). A request whose TCP peer is in one of the prefixes is
// charged, by every per-source bound, to the client the proxy names in
// X-Forwarded-For (ratelimit.ForwardedFor; the proxy's own when it names
// none), and the proxy's connections are not capped per source. Without
// it the header is never read: anyone can write it.
func WithTrustedProxies(prefixes []netip.Prefix) Option {
	return func(c *config) { c.trusted = slices.Clone(prefixes) }
}

// trustedProxy reports whether addr is in one of the trusted prefixes.
func (c *config) trustedProxy(addr netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// WithRegisterer counts rate-limit refusals on reg (guards
// "public_http", "public_discover" and "public_conns"); default: not
// registered.
func WithRegisterer(reg prometheus.Registerer) Option { return func(c *config) { c.reg = reg } }

// WithClock sets the rate limiters' clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
