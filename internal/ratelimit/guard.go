package ratelimit

import (
	"errors"
	"net/netip"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"
)

// Guard names: the closed set of the "guard" label.
const (
	GuardAdvertise = "advertise" // adp.advertise calls
	GuardDiscover  = "discover"  // adp.discover calls
	GuardGossip    = "gossip"    // cards received by gossip, per relaying peer
	// GuardPublicHTTP and GuardPublicDiscover charge requests to the
	// public HTTP server (package node/publichttp) per source IP: every
	// request, and discoveries apart.
	GuardPublicHTTP     = "public_http"
	GuardPublicDiscover = "public_discover"
	GuardDHTPut         = "dht_put" // DHT records and provider records put here
)

// Scopes: the closed set of the "scope" label.
const (
	ScopePeer    = "peer"
	ScopeNetwork = "network"
)

// Network prefix lengths: one budget per IPv4 /24 and per IPv6 /48, the
// blocks a single operator commonly holds.
const (
	IPv4Prefix = 24
	IPv6Prefix = 48
)

// Metrics counts refusals by guard and scope. Safe for concurrent use.
type Metrics struct {
	refused *prometheus.CounterVec
}

// NewMetrics registers adpnode_ratelimit_refused_total{guard, scope} on
// reg (nil: not registered, still counted). Registering twice on one
// registerer reuses the registered counter.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "adpnode_ratelimit_refused_total",
		Help: "Requests refused by a rate limit, by guard (advertise, discover, gossip, public_http, public_discover, public_conns, dht_put, connect) and scope (peer, network).",
	}, []string{"guard", "scope"})
	if reg != nil {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
			c = are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return &Metrics{refused: c}, nil
}

// Counter returns the refusal counter of guard and scope.
func (m *Metrics) Counter(guard, scope string) prometheus.Counter {
	return m.refused.WithLabelValues(guard, scope)
}

// Config is a Guard's limits.
type Config struct {
	Peer    Rate // per peer identity
	Network Rate // per source network (IPv4 /24, IPv6 /48)
	MaxKeys int  // table size of each limiter (default DefaultMaxKeys)
	// SkipLoopbackNetwork charges requests from a loopback address to
	// their peer only: the nodes of a local testnet share 127.0.0.0/24.
	SkipLoopbackNetwork bool
}

// Guard charges a request to its peer and to its source network; both
// must admit it. Safe for concurrent use.
type Guard struct {
	name        string
	peer        *Limiter
	net         networkLimiter
	refusedPeer prometheus.Counter
}

// networkLimiter charges a request to its source network: the half of a
// Guard that a ConnGate is alone.
type networkLimiter struct {
	lim          *Limiter
	skipLoopback bool
	refused      prometheus.Counter // nil: not counted
}

// allow charges one request from addr to its network. An address with no
// IP, or a loopback one under skipLoopback, is not charged.
func (n *networkLimiter) allow(addr netip.Addr) (ok bool, retryAfter time.Duration) {
	if !addr.IsValid() || n.skipLoopback && addr.IsLoopback() {
		return true, 0
	}
	if ok, wait := n.lim.Allow(NetworkKey(addr)); !ok {
		inc(n.refused)
		return false, wait
	}
	return true, 0
}

// NewGuard returns a guard named name (one of the Guard constants)
// enforcing cfg, counting refusals on m (nil: not counted), with the
// clock now (nil: time.Now).
func NewGuard(name string, cfg Config, m *Metrics, now func() time.Time) *Guard {
	opts := []Option{WithMaxKeys(cfg.MaxKeys)}
	if now != nil {
		opts = append(opts, WithClock(now))
	}
	g := &Guard{name: name, peer: New(cfg.Peer, opts...), net: networkLimiter{lim: New(cfg.Network, opts...), skipLoopback: cfg.SkipLoopbackNetwork}}
	if m != nil {
		g.refusedPeer, g.net.refused = m.Counter(name, ScopePeer), m.Counter(name, ScopeNetwork)
	}
	return g
}

// Allow charges one request from peer (any stable key, such as a peer
// ID) arriving from addr. A request whose address has no IP (a relayed
// or in-memory connection), or a loopback one under SkipLoopbackNetwork,
// is charged to its peer only. When refused it
// returns the scope that refused and the time until it would pass.
func (g *Guard) Allow(peer string, addr netip.Addr) (ok bool, retryAfter time.Duration, scope string) {
	if ok, wait := g.peer.Allow(peer); !ok {
		inc(g.refusedPeer)
		return false, wait, ScopePeer
	}
	if ok, wait := g.net.allow(addr); !ok {
		g.peer.Refund(peer)
		return false, wait, ScopeNetwork
	}
	return true, 0, ""
}

// AllowPeer is Allow for a libp2p peer reached at addr (see AddrOf).
func (g *Guard) AllowPeer(p peer.ID, addr ma.Multiaddr) (ok bool, retryAfter time.Duration) {
	ok, retryAfter, _ = g.Allow(string(p), AddrOf(addr))
	return ok, retryAfter
}

func inc(c prometheus.Counter) {
	if c != nil {
		c.Inc()
	}
}

// Keys returns the number of peers and networks the guard tracks.
func (g *Guard) Keys() (peers, networks int) { return g.peer.Len(), g.net.lim.Len() }

// NetworkKey names addr's source network: its IPv4 /24 or IPv6 /48
// prefix (an IPv4-mapped IPv6 address counts as IPv4).
func NetworkKey(addr netip.Addr) string {
	addr = addr.Unmap()
	bits := IPv6Prefix
	if addr.Is4() {
		bits = IPv4Prefix
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return addr.String()
	}
	return p.String()
}

// AddrOf returns the IP address of a multiaddr's first component, or the
// zero Addr when it has none (a relayed or in-memory address).
func AddrOf(m ma.Multiaddr) netip.Addr {
	if m == nil {
		return netip.Addr{}
	}
	if _, err := m.ValueForProtocol(ma.P_CIRCUIT); err == nil {
		return netip.Addr{} // the IP is the relay's
	}
	for _, code := range []int{ma.P_IP4, ma.P_IP6} {
		if v, err := m.ValueForProtocol(code); err == nil {
			if a, err := netip.ParseAddr(v); err == nil {
				return a
			}
		}
	}
	return netip.Addr{}
}
