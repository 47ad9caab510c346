package peering

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Defaults.
const (
	DefaultInterval     = 500 * time.Millisecond
	DefaultMinPeers     = 4
	DefaultMaxDials     = 8
	DefaultMaxKnown     = 64
	DefaultSaveInterval = 30 * time.Second
	DefaultDialTimeout  = 10 * time.Second
	// DefaultMDNSService is the mDNS service name adpnode nodes announce.
	DefaultMDNSService = "adpnode"
	// KnownFile is the book's file name in a data directory.
	KnownFile = "peers.json"
	// ListenFile is the file name of the saved listen addresses.
	ListenFile = "listen.json"
	// maxAddrsPerPeer bounds the addresses noted for one peer.
	maxAddrsPerPeer = 8
)

// Finder returns the current addresses of a peer (the DHT's FindPeer).
type Finder func(ctx context.Context, p peer.ID) (peer.AddrInfo, error)

type config struct {
	bootstrap    []peer.AddrInfo
	knownPath    string
	maxKnown     int
	minPeers     int
	maxDials     int
	interval     time.Duration
	saveInterval time.Duration
	dialTimeout  time.Duration
	backoff      Backoff
	finder       Finder
	mdns         string
	now          func() time.Time
	log          *slog.Logger
}

func defaultConfig() config {
	return config{
		maxKnown:     DefaultMaxKnown,
		minPeers:     DefaultMinPeers,
		maxDials:     DefaultMaxDials,
		interval:     DefaultInterval,
		saveInterval: DefaultSaveInterval,
		dialTimeout:  DefaultDialTimeout,
		backoff:      DefaultBackoff,
		now:          time.Now,
		log:          slog.New(slog.DiscardHandler),
	}
}

// Option configures New.
type Option func(*config) error

// Bootstrap sets the peers dialled for as long as the Peering runs.
func Bootstrap(ais ...peer.AddrInfo) Option {
	return func(c *config) error {
		c.bootstrap = append(c.bootstrap, ais...)
		return nil
	}
}

// KnownPeers persists the book of known peers at path (usually
// DataDir/KnownFile), keeping at most max (default DefaultMaxKnown when
// max is 0). Without it the book lives in memory only.
func KnownPeers(path string, max int) Option {
	return func(c *config) error {
		if max < 0 {
			return fmt.Errorf("%w: max known peers %d", ErrBadOption, max)
		}
		c.knownPath = path
		if max > 0 {
			c.maxKnown = max
		}
		return nil
	}
}

// MinPeers sets the connection count under which known peers are
// redialled (default DefaultMinPeers).
func MinPeers(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("%w: min peers %d", ErrBadOption, n)
		}
		c.minPeers = n
		return nil
	}
}

// Interval sets how often the loop looks for targets (default
// DefaultInterval).
func Interval(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: interval %v", ErrBadOption, d)
		}
		c.interval = d
		return nil
	}
}

// WithBackoff sets the redial backoff (default DefaultBackoff).
func WithBackoff(b Backoff) Option {
	return func(c *config) error {
		if !b.valid() {
			return fmt.Errorf("%w: backoff %+v", ErrBadOption, b)
		}
		c.backoff = b
		return nil
	}
}

// WithFinder sets how a peer's current addresses are found after a
// failed dial (default: none).
func WithFinder(f Finder) Option {
	return func(c *config) error {
		c.finder = f
		return nil
	}
}

// MDNS turns on mDNS discovery under the given service name (""
// means DefaultMDNSService): peers found on the local network are dialled
// and, once identified, noted like any other.
func MDNS(service string) Option {
	return func(c *config) error {
		if service == "" {
			service = DefaultMDNSService
		}
		c.mdns = service
		return nil
	}
}

// Clock sets the clock that schedules redials and dates the book
// (default time.Now).
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
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrBadOption)
		}
		c.log = l
		return nil
	}
}
