package gossip

import (
	"fmt"
	"log/slog"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
)

type config struct {
	check      Checker
	held       func(agentID string) *adp.Card
	holds      func(agentID string, raw []byte) bool
	onCard     func(c *adp.Card, from peer.ID)
	onRefresh  func(c *adp.Card, from peer.ID)
	interval   time.Duration
	jitter     time.Duration
	jitterSet  bool
	log        *slog.Logger
	reg        prometheus.Registerer
	metrics    Metrics
	score      *pubsub.PeerScoreParams
	thresholds *pubsub.PeerScoreThresholds
	psOpts     []pubsub.Option
	now        func() time.Time
	limit      Limiter

	repairEvery time.Duration // how often repairLoop looks
}

func defaultConfig() config {
	return config{
		interval: DefaultRebroadcastInterval,
		log:      slog.New(slog.DiscardHandler),
		now:      time.Now,

		repairEvery: repairEvery,
	}
}

// Option configures New.
type Option func(*config) error

// Limiter admits or refuses one message relayed by p over a connection
// from addr (internal/ratelimit's Guard is one).
type Limiter interface {
	AllowPeer(p peer.ID, addr ma.Multiaddr) (ok bool, retryAfter time.Duration)
}

// WithLimiter makes validation step 0 charge every message to the peer
// that relayed it and to its network, and Ignore it beyond their rate
// (default: no limit).
func WithLimiter(l Limiter) Option {
	return func(c *config) error {
		c.limit = l
		return nil
	}
}

// Checker is the check every card entering a node passes, whatever its
// path: size, shape, owner, validation rules and signature, with a memory
// of the encodings that passed (adp.Checker). Check's error must be an
// *adp.CheckError, whose step decides the reason of the Reject.
type Checker interface {
	Check(raw []byte, owner peer.ID) (*adp.Card, error)
}

// WithChecker sets the check of steps 1 to 4 (default: an adp.Checker of
// its own remembering 4096 encodings). A node passes the one it shares
// with its other paths, so a card heard by gossip and by the DHT is
// verified once.
func WithChecker(k Checker) Option {
	return func(c *config) error {
		if k == nil {
			return fmt.Errorf("%w: nil checker", ErrBadOption)
		}
		c.check = k
		return nil
	}
}

// Held sets the lookup of the card a node holds for an agent (the
// normalized agent://k51… id), nil when it holds none. A card that is not
// newer than the held one is ignored. It is called from the validator and
// must be fast and safe for concurrent use.
func Held(f func(agentID string) *adp.Card) Option {
	return func(c *config) error {
		c.held = f
		return nil
	}
}

// HoldsExactly sets the check that the node holds an agent's card with
// exactly the bytes raw, cheaper than Held (no card to decode). An
// owner's re-broadcast of the held card is then judged without Held.
// Like Held it is called from the validator.
func HoldsExactly(f func(agentID string, raw []byte) bool) Option {
	return func(c *config) error {
		c.holds = f
		return nil
	}
}

// OnCard sets the sink for every accepted card from another peer, with the
// peer that published it (the card's owner). Calls come from one goroutine,
// in delivery order; a slow sink delays later cards.
func OnCard(f func(c *adp.Card, from peer.ID)) Option {
	return func(c *config) error {
		c.onCard = f
		return nil
	}
}

// OnRefresh sets the sink for every re-broadcast, by its owner, of the
// card the node already holds (relayed but not handed to OnCard): a node
// can take it as proof that the owner still announces the card and renew
// its freshness. Same calling rules as OnCard, from the same goroutine.
func OnRefresh(f func(c *adp.Card, from peer.ID)) Option {
	return func(c *config) error {
		c.onRefresh = f
		return nil
	}
}

// RebroadcastInterval sets how often the own card is published again
// (default DefaultRebroadcastInterval, at least MinRebroadcastInterval).
func RebroadcastInterval(d time.Duration) Option {
	return func(c *config) error {
		if d < MinRebroadcastInterval {
			return fmt.Errorf("%w: rebroadcast interval %v below %v", ErrBadOption, d, MinRebroadcastInterval)
		}
		c.interval = d
		return nil
	}
}

// Jitter sets the largest random deviation from the rebroadcast interval,
// either way (default DefaultJitterFraction of the interval). It must be
// smaller than the interval.
func Jitter(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("%w: negative jitter %v", ErrBadOption, d)
		}
		c.jitter, c.jitterSet = d, true
		return nil
	}
}

// Logger sets the logger (default: discard).
func Logger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrBadOption)
		}
		c.log = l
		return nil
	}
}

// Registerer registers the validation counters
// (adp_gossip_messages_total{result, reason}) on reg.
func Registerer(reg prometheus.Registerer) Option {
	return func(c *config) error {
		c.reg = reg
		return nil
	}
}

// WithMetrics sends validation outcomes to m as well.
func WithMetrics(m Metrics) Option {
	return func(c *config) error {
		c.metrics = m
		return nil
	}
}

// PeerScore replaces the peer scoring parameters (default ScoreParams and
// ScoreThresholds). The cards topic's parameters must be in p.Topics. New
// adds the validator's rejection penalty (see ScoreParams) to
// p.AppSpecificScore, on a copy of p.
func PeerScore(p *pubsub.PeerScoreParams, t *pubsub.PeerScoreThresholds) Option {
	return func(c *config) error {
		if p == nil || t == nil {
			return fmt.Errorf("%w: nil score parameters", ErrBadOption)
		}
		c.score, c.thresholds = p, t
		return nil
	}
}

// PubSubOptions appends options to the GossipSub router (after the
// package's own, so they win).
func PubSubOptions(opts ...pubsub.Option) Option {
	return func(c *config) error {
		c.psOpts = append(c.psOpts, opts...)
		return nil
	}
}

// Clock sets the clock the validator's short-term memory of accepted
// cards and the repair of lost outbound streams run on (default
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
