package poll_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/poll"
)

func TestUntilHolds(t *testing.T) {
	n := 0
	err := poll.Until(context.Background(), 5*time.Second, func() error {
		if n++; n < 3 {
			return fmt.Errorf("check %d", n)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("Until = %v after %d checks, want nil after 3", err, n)
	}
}

func TestUntilTimeoutReportsLastError(t *testing.T) {
	errLast := errors.New("still missing")
	n := 0
	err := poll.Until(context.Background(), 20*time.Millisecond, func() error {
		n++
		if n == 1 {
			return errors.New("first")
		}
		return errLast
	})
	if !errors.Is(err, poll.ErrTimeout) || !errors.Is(err, errLast) {
		t.Fatalf("Until = %v, want ErrTimeout wrapping the last error", err)
	}
	if want := "timed out after 20ms: still missing"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestUntilContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := poll.Until(ctx, 0, func() error { return errors.New("never") })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "never") {
		t.Fatalf("Until = %v, want context.Canceled with the last error", err)
	}
}

func TestCond(t *testing.T) {
	ok := false
	check := poll.Cond("the thing", func() bool { return ok })
	if err := check(); err == nil || err.Error() != "waiting for the thing" {
		t.Fatalf("false condition: %v", err)
	}
	ok = true
	if err := check(); err != nil {
		t.Fatalf("true condition: %v", err)
	}
	if err := poll.Cond("", func() bool { return false })(); err == nil {
		t.Fatal("an undescribed false condition returned nil")
	}
}
