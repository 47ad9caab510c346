package webreg

import (
	"context"
	"log/slog"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/ratelimit"
)

// Defaults.
const (
	// DefaultMaxCards bounds the registrations held.
	DefaultMaxCards = 1000
	// MaxDocBytes bounds a fetched document: the bridge's own bound.
	MaxDocBytes = bridge.MaxDocSize
	// FetchTimeout bounds one fetch, connection included.
	FetchTimeout = 10 * time.Second
	// MaxConcurrentFetches bounds the fetches under way at once.
	MaxConcurrentFetches = 4
	// DefaultTTL is how long a registration is held; registering the URL
	// again renews it.
	DefaultTTL = 24 * time.Hour
)

// DefaultLimits is the registration rate: a source may register a burst
// of 10 and one every 10 s after that; its network five times that.
var DefaultLimits = ratelimit.Config{
	Peer:    ratelimit.Rate{PerSecond: 0.1, Burst: 10},
	Network: ratelimit.Rate{PerSecond: 0.5, Burst: 50},
}

// Option configures a Registry.
type Option func(*config)

type config struct {
	private  bool
	maxCards int
	ttl      time.Duration
	limits   ratelimit.Config
	didCheck func(ctx context.Context, c *adp.Card) bool
	now      func() time.Time
	log      *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{maxCards: DefaultMaxCards, ttl: DefaultTTL, limits: DefaultLimits, now: time.Now, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithPrivateAddresses allows fetching from loopback and private
// addresses (default: refused, as for the A2A client).
func WithPrivateAddresses(allow bool) Option { return func(c *config) { c.private = allow } }

// WithMaxCards bounds the registrations held (default DefaultMaxCards;
// values below 1 are ignored).
func WithMaxCards(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxCards = n
		}
	}
}

// WithTTL sets how long a registration is held (default DefaultTTL).
func WithTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.ttl = d
		}
	}
}

// WithLimits sets the per-source registration rate (default DefaultLimits).
func WithLimits(l ratelimit.Config) Option { return func(c *config) { c.limits = l } }

// WithDIDCheck sets how a card's did:wba DID is checked: check reports
// whether the DID document resolves and lists the key of the card's id
// (the node's Node.DomainVerified == DomainVerified). Default: not
// checked.
func WithDIDCheck(check func(ctx context.Context, c *adp.Card) bool) Option {
	return func(c *config) { c.didCheck = check }
}

// WithClock sets the clock of expiry and rate limits (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithLogger sets the logger (default: discard). Refused registrations
// are logged at Debug.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }
