package gossip

import "time"

// Topic is the GossipSub topic of Agent Cards. Changing it splits the
// network.
const Topic = "/adp/cards/1.0.0"

// Defaults.
const (
	// DefaultRebroadcastInterval is how often the own card is published
	// again.
	DefaultRebroadcastInterval = 5 * time.Minute

	// DefaultJitterFraction is the default jitter as a fraction of the
	// rebroadcast interval: each wait is the interval plus or minus up to
	// this much of it, so nodes started together do not publish together.
	DefaultJitterFraction = 0.2

	// MinRebroadcastInterval bounds the RebroadcastInterval option.
	MinRebroadcastInterval = 10 * time.Millisecond

	// SubscriptionBuffer is how many accepted cards may wait for the
	// OnCard sink; past it GossipSub drops deliveries (the cards are
	// still relayed) and the rebroadcast or the DHT fills the gap.
	SubscriptionBuffer = 256
)

// Validation outcome reasons, the values of the "reason" label of the
// rejected and ignored counters. Append only.
const (
	ReasonOversized = "oversized"
	ReasonMalformed = "malformed"
	ReasonNotOwner  = "not_owner"
	ReasonInvalid   = "invalid"
	ReasonNotNewer  = "not_newer"
	ReasonReplayed  = "replayed"
	// ReasonRateLimited: the relaying peer or its network sent more
	// cards than the limiter (WithLimiter) admits.
	ReasonRateLimited = "rate_limited"
)
