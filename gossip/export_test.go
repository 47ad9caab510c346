package gossip

import "time"

// WithRepairEvery sets how often repairLoop looks (default every second),
// so that a test moving the clock by hand need not wait a round.
func WithRepairEvery(d time.Duration) Option {
	return func(c *config) error {
		c.repairEvery = d
		return nil
	}
}

// InboundPubsub is inboundPubsub: whether p has a pubsub stream to h.
var InboundPubsub = inboundPubsub

// RepairGrace is how long a peer goes without an outbound stream before
// it is announced to the router again.
const RepairGrace = repairGrace
