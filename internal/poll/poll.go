package poll

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTimeout reports a wait that ran out of time. Until wraps it together
// with the last error the condition returned.
var ErrTimeout = errors.New("timed out")

// Polling intervals: the first check is at once, then the interval backs
// off from MinInterval to MaxInterval so that fast conditions are seen
// quickly and slow ones cost little.
const (
	MinInterval = 2 * time.Millisecond
	MaxInterval = 50 * time.Millisecond
)

// errNotYet is what Cond reports when the caller gave no description.
var errNotYet = errors.New("condition not met")

// Until calls check at once and then at backing-off intervals until it
// returns nil, timeout passes or ctx ends. A timeout of zero or less
// means no timeout: only ctx bounds the wait. On timeout the error wraps
// ErrTimeout and the last error check returned ("timed out after 5s:
// node 3 holds 2 cards"); when ctx ends first it wraps ctx's error and
// the last error.
func Until(ctx context.Context, timeout time.Duration, check func() error) error {
	last := check()
	if last == nil {
		return nil
	}
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	interval := MinInterval
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ctx.Err(), last)
		case <-deadline:
			if last = check(); last == nil {
				return nil
			}
			return fmt.Errorf("%w after %v: %w", ErrTimeout, timeout, last)
		case <-tick.C:
			if last = check(); last == nil {
				return nil
			}
			interval = min(2*interval, MaxInterval)
			tick.Reset(interval)
		}
	}
}

// Cond adapts a boolean condition to Until: while cond is false the error
// is "waiting for " followed by what.
func Cond(what string, cond func() bool) func() error {
	err := errNotYet
	if what != "" {
		err = fmt.Errorf("waiting for %s", what)
	}
	return func() error {
		if cond() {
			return nil
		}
		return err
	}
}
