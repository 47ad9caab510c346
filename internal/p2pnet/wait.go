package p2pnet

import (
	"context"
	"time"
)

// PollInterval is how often WaitFor checks its condition.
const PollInterval = 5 * time.Millisecond

// WaitFor polls cond every PollInterval until it returns true or ctx ends;
// it returns ctx's error in the second case. Tests and testnets use it in
// place of sleeping for a guessed time.
func WaitFor(ctx context.Context, cond func() bool) error {
	if cond() {
		return nil
	}
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if cond() {
				return nil
			}
		}
	}
}
