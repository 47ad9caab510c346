package gossip

import "time"

// WithRepairTiming sets the round and the grace of repairLoop (grace 0: no
// repair), so that tests need not wait the defaults.
func WithRepairTiming(every, grace time.Duration) Option {
	return func(c *config) error {
		c.repairEvery, c.repairGrace = every, grace
		return nil
	}
}
