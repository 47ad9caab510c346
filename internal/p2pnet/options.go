package p2pnet

import (
	"fmt"
	"io"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
)

// Transport selects how the hosts of a Network talk to each other.
type Transport int

const (
	// Mocknet links the hosts in memory: no sockets, no handshakes.
	Mocknet Transport = iota
	// TCP listens on 127.0.0.1 port 0 and secures connections with Noise
	// over yamux, as a deployed node does.
	TCP
)

// String implements fmt.Stringer.
func (t Transport) String() string {
	switch t {
	case Mocknet:
		return "mocknet"
	case TCP:
		return "tcp"
	default:
		return fmt.Sprintf("transport(%d)", int(t))
	}
}

// Topology selects which hosts New connects.
type Topology int

const (
	// Full connects every pair of hosts.
	Full Topology = iota
	// Ring connects host i to host i+1 (and the last to the first).
	Ring
	// Star connects every host to host 0, the bootstrap peer.
	Star
	// Unconnected leaves the hosts apart; the caller connects them.
	Unconnected
)

// String implements fmt.Stringer.
func (t Topology) String() string {
	switch t {
	case Full:
		return "full"
	case Ring:
		return "ring"
	case Star:
		return "star"
	case Unconnected:
		return "unconnected"
	default:
		return fmt.Sprintf("topology(%d)", int(t))
	}
}

type config struct {
	transport Transport
	topology  Topology
	keys      []crypto.PrivKey
	rand      io.Reader
	hostOpts  []libp2p.Option
}

// Option configures New.
type Option func(*config) error

// WithTransport selects mocknet (the default) or loopback TCP.
func WithTransport(t Transport) Option {
	return func(c *config) error {
		if t != Mocknet && t != TCP {
			return fmt.Errorf("%w: unknown transport %d", ErrBadConfig, int(t))
		}
		c.transport = t
		return nil
	}
}

// WithTopology selects how New connects the hosts (default Full).
func WithTopology(t Topology) Option {
	return func(c *config) error {
		if t < Full || t > Unconnected {
			return fmt.Errorf("%w: unknown topology %d", ErrBadConfig, int(t))
		}
		c.topology = t
		return nil
	}
}

// WithKeys gives the first len(keys) hosts these identities; the others get
// fresh Ed25519 keys. Every key must be Ed25519, the only key type an agent
// id can name.
func WithKeys(keys ...crypto.PrivKey) Option {
	return func(c *config) error {
		for i, k := range keys {
			if k == nil || k.Type() != crypto.Ed25519 {
				return fmt.Errorf("%w: key %d is not Ed25519", ErrBadConfig, i)
			}
		}
		c.keys = append([]crypto.PrivKey(nil), keys...)
		return nil
	}
}

// WithRand sets the randomness fresh keys are drawn from (default
// crypto/rand). A deterministic reader gives reproducible peer ids.
func WithRand(r io.Reader) Option {
	return func(c *config) error {
		if r == nil {
			return fmt.Errorf("%w: nil random reader", ErrBadConfig)
		}
		c.rand = r
		return nil
	}
}

// WithHostOptions appends libp2p options to every TCP host (ignored on
// mocknet). They are applied after the builder's own, so they win.
func WithHostOptions(opts ...libp2p.Option) Option {
	return func(c *config) error {
		c.hostOpts = append(c.hostOpts, opts...)
		return nil
	}
}
