package dht

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/tag"
)

// ModeOpt selects whether the DHT answers queries.
type ModeOpt int

const (
	// ModeAuto serves when the node is publicly reachable and is a client
	// otherwise. On loopback and private networks it stays a client.
	ModeAuto ModeOpt = iota
	// ModeClient queries but never answers.
	ModeClient
	// ModeServer always answers: testnets and nodes known to be reachable.
	ModeServer
)

type config struct {
	mode      ModeOpt
	bootstrap []peer.AddrInfo
	republish time.Duration
	log       *slog.Logger
	onCard    func(*adp.Card)
	tags      *tag.Taxonomy
	check     Checker
	quorum    int
	putLimit  PutLimiter
	noRefresh bool
	reg       prometheus.Registerer
}

func defaultConfig() config {
	return config{
		mode:      ModeAuto,
		republish: DefaultRepublishInterval,
		log:       slog.New(slog.DiscardHandler),
		tags:      tag.Default(),
		quorum:    DefaultGetQuorum,
	}
}

// Option configures New.
type Option func(*config) error

// Mode sets the DHT mode (default ModeAuto).
func Mode(m ModeOpt) Option {
	return func(c *config) error {
		if m < ModeAuto || m > ModeServer {
			return fmt.Errorf("%w: mode %d", ErrBadOption, int(m))
		}
		c.mode = m
		return nil
	}
}

// BootstrapPeers sets the peers Bootstrap connects to and kad-dht falls
// back to when its routing table empties.
func BootstrapPeers(peers ...peer.AddrInfo) Option {
	return func(c *config) error {
		c.bootstrap = append([]peer.AddrInfo(nil), peers...)
		return nil
	}
}

// RepublishInterval sets how often remembered cards and their provider
// records are put again (default DefaultRepublishInterval; from
// MinRepublishInterval to MaxRepublishInterval).
func RepublishInterval(d time.Duration) Option {
	return func(c *config) error {
		if d < MinRepublishInterval || d > MaxRepublishInterval {
			return fmt.Errorf("%w: republish interval %v not within %v to %v", ErrBadOption, d, MinRepublishInterval, MaxRepublishInterval)
		}
		c.republish = d
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

// Checker is the check every card entering a node passes, whatever its
// path (adp.Checker): size, shape, owner, validation rules and signature,
// with a memory of the encodings that passed.
type Checker interface {
	Check(raw []byte, owner peer.ID) (*adp.Card, error)
}

// WithChecker makes the validator kad-dht runs check cards through k (step
// 3 of Validator.Validate), so a card the node verified on another path is
// not verified again (default: adp.DecodeVerified, with the DHT's own
// memory of valid records).
func WithChecker(k Checker) Option {
	return func(c *config) error {
		if k == nil {
			return fmt.Errorf("%w: nil checker", ErrBadOption)
		}
		c.check = k
		return nil
	}
}

// OnCard sets a sink for every verified card this DHT obtains, so the node
// can store it: cards GetCard fetches (called before GetCard returns) and
// cards peers put here (called from one background goroutine, in arrival
// order). It must not block for long.
func OnCard(f func(*adp.Card)) Option {
	return func(c *config) error {
		c.onCard = f
		return nil
	}
}

// Taxonomy sets the tag taxonomy (default tag.Default()) whose canonical
// form of a tag, and each of its parent paths, is the provider key the DHT
// announces a skill under and finds it by. Every node of a network must
// use the same one.
func Taxonomy(t *tag.Taxonomy) Option {
	return func(c *config) error {
		if t == nil {
			return fmt.Errorf("%w: nil taxonomy", ErrBadOption)
		}
		c.tags = t
		return nil
	}
}

// GetQuorum sets how many answers GetCard waits for before it settles on
// the newest card among them (default DefaultGetQuorum; 0 means kad-dht's
// default of 16, or the end of the lookup). A lower quorum answers sooner
// and is likelier to miss a card put moments ago on a few peers only.
func GetQuorum(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("%w: quorum %d", ErrBadOption, n)
		}
		c.quorum = n
		return nil
	}
}

type getConfig struct{ quorum int }

// GetOption tunes one GetCard call.
type GetOption func(*getConfig)

// Quorum overrides the GetQuorum option for one call; n <= 0 means
// kad-dht's default of 16.
func Quorum(n int) GetOption {
	return func(c *getConfig) { c.quorum = max(n, 0) }
}

// PutLimiter admits or refuses one record a peer asks this node to store
// (a card or a provider record), by the peer and the address of its
// connection; ratelimit.Guard is one. It must be safe for concurrent use.
type PutLimiter interface {
	AllowPeer(p peer.ID, addr ma.Multiaddr) (ok bool, retryAfter time.Duration)
}

// WithPutLimit drops the PUT_VALUE and ADD_PROVIDER requests that l
// refuses before kad-dht stores anything (the Kademlia protocol has no
// BUSY answer: the request fails and its stream is reset), counting them
// in Stats.PutsRefused (default: no limit).
func WithPutLimit(l PutLimiter) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("%w: nil put limit", ErrBadOption)
		}
		c.putLimit = l
		return nil
	}
}

// NoAutoRefresh stops kad-dht from refreshing the routing table on its
// own: at start, every ten minutes and whenever the table falls to ten
// peers or fewer. Only Bootstrap refreshes it then. A node keeps the
// default; a simulation that gives its nodes the routing tables of a
// network that has run a while sets it, so that hundreds of nodes
// connecting at once do not each walk the whole network.
func NoAutoRefresh() Option {
	return func(c *config) error {
		c.noRefresh = true
		return nil
	}
}

// Registerer exports the DHT's counters (Stats) and its routing table's
// size on reg (adpnode_dht_*) until Close.
func Registerer(reg prometheus.Registerer) Option {
	return func(c *config) error {
		if reg == nil {
			return fmt.Errorf("%w: nil registerer", ErrBadOption)
		}
		c.reg = reg
		return nil
	}
}
