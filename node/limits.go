package node

import (
	"fmt"

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
		// The nodes of a local testnet share 127.0.0.0/24.
		SkipLoopbackNetwork: true,
	}
	discoverLimits = ratelimit.Config{
		Peer:                ratelimit.Rate{PerSecond: 5, Burst: 20},
		Network:             ratelimit.Rate{PerSecond: 25, Burst: 100},
		SkipLoopbackNetwork: true,
	}
	gossipLimits = ratelimit.Config{
		Peer:                ratelimit.Rate{PerSecond: 50, Burst: 500},
		Network:             ratelimit.Rate{PerSecond: 200, Burst: 2000},
		SkipLoopbackNetwork: true,
	}
)

// limits are the node's rate limits on what peers make it do.
type limits struct {
	advertise, discover, gossip *ratelimit.Guard
}

// newLimits builds the guards, counting refusals on reg.
func newLimits(reg prometheus.Registerer) (*limits, error) {
	m, err := ratelimit.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("node: rate limit metrics: %w", err)
	}
	return &limits{
		advertise: ratelimit.NewGuard(ratelimit.GuardAdvertise, advertiseLimits, m, nil),
		discover:  ratelimit.NewGuard(ratelimit.GuardDiscover, discoverLimits, m, nil),
		gossip:    ratelimit.NewGuard(ratelimit.GuardGossip, gossipLimits, m, nil),
	}, nil
}
