package peering

import "time"

// Backoff is a bounded exponential backoff with jitter.
type Backoff struct {
	// Base is the ceiling of the first wait.
	Base time.Duration
	// Max bounds every wait.
	Max time.Duration
}

// DefaultBackoff paces redials of one peer: about 0.5 s after the first
// failure, doubling, never more than a minute apart.
var DefaultBackoff = Backoff{Base: 500 * time.Millisecond, Max: time.Minute}

// Delay returns the wait before attempt+1, given a uniform draw u in
// [0, 1): a value in [d/2, d] with d = min(Max, Base·2^attempt). Half the
// wait is jitter, so peers that lost the same node do not all come back
// at one instant.
func (b Backoff) Delay(attempt int, u float64) time.Duration {
	d := b.Max
	if attempt < 62 {
		if e := b.Base << attempt; e > 0 && e < b.Max {
			d = e
		}
	}
	return d/2 + time.Duration(u*float64(d/2))
}

func (b Backoff) valid() bool { return b.Base > 0 && b.Max >= b.Base }
