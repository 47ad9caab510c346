package store

import (
	"fmt"
	"log/slog"
	"time"
)

// Defaults.
const (
	// DefaultTTL is how long a card stays fresh after it was received when
	// its metadata.ttl is absent.
	DefaultTTL = time.Hour
	// DefaultGrace is how long a stale card stays fetchable (marked stale)
	// before the sweeper removes it.
	DefaultGrace = 24 * time.Hour
	// DefaultTombstoneTTL is the least time a revocation tombstone is kept,
	// whatever the revocation card's own TTL.
	DefaultTombstoneTTL = 7 * 24 * time.Hour
	// DefaultSweepInterval is how often the expiry sweeper runs.
	DefaultSweepInterval = time.Minute
	// MaxTTL caps a card's freshness: metadata.ttl may name up to 2^53
	// seconds, far past what a time stored in Unix nanoseconds holds.
	MaxTTL = 10 * 365 * 24 * time.Hour
)

// Option configures Open.
type Option func(*config) error

type config struct {
	now           func() time.Time
	logger        *slog.Logger
	defaultTTL    time.Duration
	grace         time.Duration
	tombstoneTTL  time.Duration
	sweepInterval time.Duration
	noEviction    bool
	smallMemory   bool
	inMemory      bool
	noSync        bool
	metrics       Metrics
	maxCards      int
	networkShare  float64
}

func defaultConfig() config {
	return config{
		now:           time.Now,
		logger:        slog.New(slog.DiscardHandler),
		defaultTTL:    DefaultTTL,
		grace:         DefaultGrace,
		tombstoneTTL:  DefaultTombstoneTTL,
		sweepInterval: DefaultSweepInterval,
		metrics:       nopMetrics{},
		networkShare:  DefaultNetworkShare,
	}
}

// WithClock sets the clock that decides received times, expiry and
// staleness (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrInvalid)
		}
		c.now = now
		return nil
	}
}

// WithLogger sets the logger (default: discard). Badger's own log goes to it
// at Debug (its errors at Error, warnings at Warn).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalid)
		}
		c.logger = l
		return nil
	}
}

// WithDefaultTTL sets the freshness of a card without metadata.ttl
// (default DefaultTTL).
func WithDefaultTTL(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: default TTL %v", ErrInvalid, d)
		}
		c.defaultTTL = d
		return nil
	}
}

// WithGrace sets how long past its expiry a card is kept, marked stale,
// before the sweeper removes it (default DefaultGrace; 0 removes at expiry).
func WithGrace(d time.Duration) Option {
	return nonNegative("grace", d, func(c *config) *time.Duration { return &c.grace })
}

// WithTombstoneTTL sets the least time a revocation tombstone is kept
// (default DefaultTombstoneTTL). A tombstone is kept for the longer of this
// and the revocation card's own TTL, then for the grace period.
func WithTombstoneTTL(d time.Duration) Option {
	return nonNegative("tombstone TTL", d, func(c *config) *time.Duration { return &c.tombstoneTTL })
}

// WithSweepInterval sets how often the background sweeper removes expired
// records (default DefaultSweepInterval). 0 disables the background
// sweeper; Sweep can still be called.
func WithSweepInterval(d time.Duration) Option {
	return nonNegative("sweep interval", d, func(c *config) *time.Duration { return &c.sweepInterval })
}

// nonNegative returns an Option that sets the duration field picks to d,
// refusing a negative d (what names the setting in the error).
func nonNegative(what string, d time.Duration, field func(*config) *time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: %s %v", ErrInvalid, what, d)
		}
		*field(c) = d
		return nil
	}
}

// WithNoEviction keeps every card and tombstone whatever its age: the
// directory-peer mode. Stale marking (Record.Stale) still applies.
func WithNoEviction() Option {
	return func(c *config) error {
		c.noEviction = true
		return nil
	}
}

// WithSmallMemory sizes Badger for the card store of a test node (see
// smallMemory): about 1.4 MiB of heap per open store instead of about 11
// MiB (cardStore), for tests and testnets of many nodes.
func WithSmallMemory() Option {
	return func(c *config) error {
		c.smallMemory = true
		return nil
	}
}

// WithInMemory keeps everything in memory (Open's dir must be empty):
// nothing survives Close. For tests and throwaway testnets.
func WithInMemory() Option {
	return func(c *config) error {
		c.inMemory = true
		return nil
	}
}

// WithoutSync acknowledges writes once committed, without waiting for a
// sync to disk. They still survive the process being killed (kill -9,
// tested: Badger writes through memory-mapped files that the kernel keeps)
// but not a power loss or a kernel crash. For in-process testnets and
// benchmarks, where many stores share one disk.
func WithoutSync() Option {
	return func(c *config) error {
		c.noSync = true
		return nil
	}
}

// WithMetrics reports store events to m (default: none). See
// NewPrometheusMetrics.
func WithMetrics(m Metrics) Option {
	return func(c *config) error {
		if m == nil {
			return fmt.Errorf("%w: nil metrics", ErrInvalid)
		}
		c.metrics = m
		return nil
	}
}

// WithMaxCards bounds the live card set to n cards (0, the default: no
// bound). A new agent's card past the bound takes the place of a weaker
// held card (see "Bounds" in the package documentation) or is refused with
// ErrFull; the node's own and imported cards are never evicted.
func WithMaxCards(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("%w: max cards %d", ErrInvalid, n)
		}
		c.maxCards = n
		return nil
	}
}

// WithNetworkShare sets the fraction of WithMaxCards that the new agents
// delivered from one source network (PutCard's FromNetwork) may hold
// together (default DefaultNetworkShare), so that identities minted on one
// machine cannot take the store.
func WithNetworkShare(f float64) Option {
	return func(c *config) error {
		if !(f > 0 && f <= 1) {
			return fmt.Errorf("%w: network share %v outside (0, 1]", ErrInvalid, f)
		}
		c.networkShare = f
		return nil
	}
}
