package testnet

import (
	"context"
	"fmt"
	"time"
)

// Polling intervals: first check at once, then back off from minPoll to
// maxPoll so that fast conditions are seen quickly and slow ones cost
// little.
const (
	minPoll = 2 * time.Millisecond
	maxPoll = 50 * time.Millisecond
)

// WaitFor polls cond until it returns true or timeout passes; then it
// returns an error wrapping ErrTimeout. Tests use it in place of sleeping for
// a guessed time.
func WaitFor(cond func() bool, timeout time.Duration) error {
	return poll(context.Background(), timeout, cond)
}

// poll is WaitFor with a context; it returns ctx's error when ctx ends first.
func poll(ctx context.Context, timeout time.Duration, cond func() bool) error {
	if cond() {
		return nil
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	interval := minPoll
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			if cond() {
				return nil
			}
			return fmt.Errorf("%w after %v", ErrTimeout, timeout)
		case <-tick.C:
			if cond() {
				return nil
			}
			interval = min(2*interval, maxPoll)
			tick.Reset(interval)
		}
	}
}
