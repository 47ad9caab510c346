package polltest

import (
	"context"
	"time"

	"github.com/adpnode/adpnode/internal/poll"
)

// TB is the part of testing.TB that Until uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Until polls check until it returns nil; when timeout passes first it fails the test with "timed out after
// <timeout>: <last error>".
func Until(t TB, timeout time.Duration, check func() error) {
	t.Helper()
	if err := poll.Until(context.Background(), timeout, check); err != nil {
		t.Fatalf("%v", err)
	}
}

// For polls the boolean cond until it holds; on timeout the test fails
// naming what it waited for. It is Until with poll.Cond.
func For(t TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Until(t, timeout, poll.Cond(what, cond))
}
