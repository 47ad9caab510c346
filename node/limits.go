package node

import (
	"fmt"
	"time"

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
	advertiseLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 1, Burst: 5},
		Network: ratelimit.Rate{PerSecond: 10, Burst: 50},
		// The nodes of a local testnet share 127.0.0.0/24: newLimits
		// charges loopback peers to their peer only.
	}
	discoverLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 5, Burst: 20},
		Network: ratelimit.Rate{PerSecond: 25, Burst: 100},
	}
	// dhtPutLimits bound the DHT records peers store here: an honest node
	// puts its card and a provider record per skill tag and parent once
	// per republish interval.
	dhtPutLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 2, Burst: 50},
		Network: ratelimit.Rate{PerSecond: 20, Burst: 500},
	}
	// connectLimit is the rate of inbound connections a source network
	// gets, checked before the handshake: every fresh identity needs a
	// connection, and a handshake costs the node a key exchange.
	connectLimit = ratelimit.Rate{PerSecond: 5, Burst: 50}
	gossipLimits = ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 50, Burst: 500},
		Network: ratelimit.Rate{PerSecond: 200, Burst: 2000},
	}
)

// fullRetryAfter is the retry_after of an adp.advertise refused because
// the store is full (store.ErrFull): held cards go stale on the scale of
// their TTL, not of seconds.
const fullRetryAfter = time.Minute

// limits are the node's rate limits on what peers make it do.
type limits struct {
	advertise, discover, gossip, dhtPut *ratelimit.Guard
	connect                             *ratelimit.ConnGate // the host's connection gater
}

// newLimits builds the guards, counting refusals on reg, from cfg's
// ChargeLoopback and ConnectionGater (consulted by the connect gate).
func newLimits(reg prometheus.Registerer, cfg Config) (*limits, error) {
	chargeLoopback := cfg.ChargeLoopback
	m, err := ratelimit.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("node: rate limit metrics: %w", err)
	}
	guard := func(name string, cfg ratelimit.Config) *ratelimit.Guard {
		cfg.SkipLoopbackNetwork = !chargeLoopback
		return ratelimit.NewGuard(name, cfg, m, nil)
	}
	return &limits{
		advertise: guard(ratelimit.GuardAdvertise, advertiseLimits),
		discover:  guard(ratelimit.GuardDiscover, discoverLimits),
		gossip:    guard(ratelimit.GuardGossip, gossipLimits),
		dhtPut:    guard(ratelimit.GuardDHTPut, dhtPutLimits),
		connect:   ratelimit.NewConnGate(connectLimit, !chargeLoopback, m, cfg.ConnectionGater),
	}, nil
}

// networkOf names the source network (IPv4 /24, IPv6 /48) of the
// connection to p for the store's network quota: "" when p is not
// connected, connected through a relay, or on loopback (unless
// Config.ChargeLoopback).
func (n *Node) networkOf(p peer.ID) string {
	if p == "" {
		return ""
	}
	for _, c := range n.host.Network().ConnsToPeer(p) {
		a := ratelimit.AddrOf(c.RemoteMultiaddr())
		if a.IsValid() && (n.cfg.ChargeLoopback || !a.IsLoopback()) {
			return ratelimit.NetworkKey(a)
		}
	}
	return ""
}
