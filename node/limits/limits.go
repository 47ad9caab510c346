package limits

import (
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

// Rates a peer and its source network (IPv4 /24, IPv6 /48) get. An
// honest node advertises its card once per republish interval and asks a
// few discoveries a minute; a network allows for many nodes behind one
// NAT. Gossip counts every card a peer relays, its own and others', so
// its budget is the largest.
var (
	Advertise = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 1, Burst: 5},
		Network: ratelimit.Rate{PerSecond: 10, Burst: 50},
		// The nodes of a local testnet share 127.0.0.0/24: New charges
		// loopback peers to their peer only.
	}
	Discover = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 5, Burst: 20},
		Network: ratelimit.Rate{PerSecond: 25, Burst: 100},
	}
	// DHTPut bounds the DHT records peers store here: an honest node puts
	// its card and a provider record per skill tag and parent once per
	// republish interval.
	DHTPut = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 2, Burst: 50},
		Network: ratelimit.Rate{PerSecond: 20, Burst: 500},
	}
	// Connect is the rate of inbound connections a source network gets,
	// checked before the handshake: every fresh identity needs a
	// connection, and a handshake costs the node a key exchange.
	Connect = ratelimit.Rate{PerSecond: 5, Burst: 50}
	Gossip  = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 50, Burst: 500},
		Network: ratelimit.Rate{PerSecond: 200, Burst: 2000},
	}
)

// FullRetryAfter is the retry_after of an adp.advertise refused because
// the store is full (store.ErrFull): held cards go stale on the scale of
// their TTL, not of seconds.
const FullRetryAfter = time.Minute

// Limits are a node's guards on what peers make it do.
type Limits struct {
	Advertise, Discover, Gossip, DHTPut *ratelimit.Guard
	Connect                             *ratelimit.ConnGate // the host's connection gater
	chargeLoopback                      bool
}

// New builds the guards, counting refusals on reg. Unless chargeLoopback,
// a loopback peer is charged to itself only, not to the loopback network
// (the nodes of a local testnet share it). next, when not nil, is
// consulted by the connection gate after its own check.
func New(reg prometheus.Registerer, chargeLoopback bool, next connmgr.ConnectionGater) (*Limits, error) {
	m, err := ratelimit.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("limits: rate limit metrics: %w", err)
	}
	guard := func(name string, cfg ratelimit.Config) *ratelimit.Guard {
		cfg.SkipLoopbackNetwork = !chargeLoopback
		return ratelimit.NewGuard(name, cfg, m, nil)
	}
	return &Limits{
		Advertise:      guard(ratelimit.GuardAdvertise, Advertise),
		Discover:       guard(ratelimit.GuardDiscover, Discover),
		Gossip:         guard(ratelimit.GuardGossip, Gossip),
		DHTPut:         guard(ratelimit.GuardDHTPut, DHTPut),
		Connect:        ratelimit.NewConnGate(Connect, !chargeLoopback, m, next),
		chargeLoopback: chargeLoopback,
	}, nil
}

// NetworkOf names the source network (IPv4 /24, IPv6 /48) of nw's
// connection to p, for the store's quota per network: "" when p is
// empty, not connected, connected only through a relay, or on loopback
// (unless chargeLoopback was set).
func (l *Limits) NetworkOf(nw network.Network, p peer.ID) string {
	if p == "" {
		return ""
	}
	for _, c := range nw.ConnsToPeer(p) {
		a := ratelimit.AddrOf(c.RemoteMultiaddr())
		if a.IsValid() && (l.chargeLoopback || !a.IsLoopback()) {
			return ratelimit.NetworkKey(a)
		}
	}
	return ""
}
