package testnet

import (
	"context"
	"time"

	"github.com/adpnode/adpnode/internal/poll"
)

// WaitFor polls cond until it returns true or timeout passes; then it
// returns an error wrapping ErrTimeout. Tests use it in place of sleeping for
// a guessed time. It is poll.Until with a boolean condition.
func WaitFor(cond func() bool, timeout time.Duration) error {
	return pollCond(context.Background(), timeout, cond)
}

// pollCond is WaitFor with a context; it returns an error wrapping ctx's
// when ctx ends first.
func pollCond(ctx context.Context, timeout time.Duration, cond func() bool) error {
	return poll.Until(ctx, timeout, poll.Cond("", cond))
}
