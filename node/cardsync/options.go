package cardsync

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
)

// Defaults.
const (
	// DefaultInterval is the least time between two syncs with one peer.
	DefaultInterval = 5 * time.Second
	// DefaultMaxInFlight bounds the syncs running at once.
	DefaultMaxInFlight = 2
	// DefaultMaxPending bounds the peers waiting for a sync.
	DefaultMaxPending = 1024
	// DefaultTimeout bounds the fetch of one sync.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxCards bounds the entries one sync considers.
	DefaultMaxCards = adp.MaxDiscoverLimit
	// DefaultRepublishDelay is how long a republication waits after it
	// is asked for.
	DefaultRepublishDelay = 500 * time.Millisecond
	// DefaultRepublishInterval is the least time between two
	// republications of the own card.
	DefaultRepublishInterval = 5 * time.Second
	// DefaultRound is the pace of the anti-entropy rounds (Rounds).
	DefaultRound = 30 * time.Second
	// maxRetries bounds the attempts after a failed sync with one peer.
	maxRetries = 3
	// maxRemembered bounds the peers whose last sync time is kept.
	maxRemembered = 4096
)

type config struct {
	interval          time.Duration
	maxInFlight       int
	maxPending        int
	timeout           time.Duration
	maxCards          int
	republishDelay    time.Duration
	republishInterval time.Duration
	connected         func(peer.ID) bool
	round             time.Duration
	peers             func() []peer.ID
	own               func() *adp.Card
	publish           func(context.Context, *adp.Card) error
	now               func() time.Time
	log               *slog.Logger
	reg               prometheus.Registerer
}

func defaultConfig() config {
	return config{
		interval:          DefaultInterval,
		maxInFlight:       DefaultMaxInFlight,
		maxPending:        DefaultMaxPending,
		timeout:           DefaultTimeout,
		maxCards:          DefaultMaxCards,
		republishDelay:    DefaultRepublishDelay,
		republishInterval: DefaultRepublishInterval,
		now:               time.Now,
		log:               slog.New(slog.DiscardHandler),
	}
}

// Option configures New.
type Option func(*config) error

func positive[T int | time.Duration](what string, v T, set func()) error {
	if v <= 0 {
		return fmt.Errorf("%w: %s %v", ErrBadOption, what, v)
	}
	set()
	return nil
}

// Interval sets the least time between two syncs with one peer (default
// DefaultInterval).
func Interval(d time.Duration) Option {
	return func(c *config) error { return positive("interval", d, func() { c.interval = d }) }
}

// MaxInFlight bounds the syncs running at once (default
// DefaultMaxInFlight).
func MaxInFlight(n int) Option {
	return func(c *config) error { return positive("max in flight", n, func() { c.maxInFlight = n }) }
}

// MaxPending bounds the peers waiting for a sync (default
// DefaultMaxPending).
func MaxPending(n int) Option {
	return func(c *config) error { return positive("max pending", n, func() { c.maxPending = n }) }
}

// Timeout bounds the fetch of one sync (default DefaultTimeout).
func Timeout(d time.Duration) Option {
	return func(c *config) error { return positive("timeout", d, func() { c.timeout = d }) }
}

// MaxCards bounds the entries of a peer's list one sync considers
// (default DefaultMaxCards).
func MaxCards(n int) Option {
	return func(c *config) error { return positive("max cards", n, func() { c.maxCards = n }) }
}

// IsConnected skips a waiting sync whose peer is no longer connected by
// the time it is due (the node passes its network's connectedness).
func IsConnected(f func(peer.ID) bool) Option {
	return func(c *config) error {
		c.connected = f
		return nil
	}
}

// Rounds enables anti-entropy: every round (plus or minus a quarter, at
// random) the Syncer syncs with the peer of peers() it synced with least
// recently, so that a card a node missed while connected (a message
// GossipSub dropped under load) is fetched within a few rounds. Zero
// round means DefaultRound.
func Rounds(round time.Duration, peers func() []peer.ID) Option {
	return func(c *config) error {
		if round < 0 || peers == nil {
			return fmt.Errorf("%w: rounds every %v", ErrBadOption, round)
		}
		if round == 0 {
			round = DefaultRound
		}
		c.round, c.peers = round, peers
		return nil
	}
}

// Republish enables step 4: own returns the node's own card, publish
// sends it to the network again. Without it a peer that missed the own
// card is not acted on.
func Republish(own func() *adp.Card, publish func(context.Context, *adp.Card) error) Option {
	return func(c *config) error {
		if own == nil || publish == nil {
			return fmt.Errorf("%w: republish needs the own card and a publish function", ErrBadOption)
		}
		c.own, c.publish = own, publish
		return nil
	}
}

// RepublishPace sets the delay of a republication and the least time
// between two (defaults DefaultRepublishDelay, DefaultRepublishInterval).
func RepublishPace(delay, interval time.Duration) Option {
	return func(c *config) error {
		if delay < 0 {
			return fmt.Errorf("%w: republish delay %v", ErrBadOption, delay)
		}
		return positive("republish interval", interval, func() { c.republishDelay, c.republishInterval = delay, interval })
	}
}

// Clock injects the time source of the per-peer interval (default
// time.Now).
func Clock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return fmt.Errorf("%w: nil clock", ErrBadOption)
		}
		c.now = now
		return nil
	}
}

// Logger sets the logger (default: discard).
func Logger(l *slog.Logger) Option {
	return func(c *config) error {
		if l != nil {
			c.log = l
		}
		return nil
	}
}

// Registerer exports the Syncer's counters on reg (adpnode_cardsync_*;
// see Stats) until Close.
func Registerer(reg prometheus.Registerer) Option {
	return func(c *config) error {
		if reg == nil {
			return fmt.Errorf("%w: nil registerer", ErrBadOption)
		}
		c.reg = reg
		return nil
	}
}
