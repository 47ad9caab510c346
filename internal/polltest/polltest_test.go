package polltest_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
)

// fakeTB records a failure instead of ending the test.
type fakeTB struct{ failed string }

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}

func TestUntilFailsWithLastError(t *testing.T) {
	var tb fakeTB
	n := 0
	polltest.Until(&tb, 10*time.Millisecond, func() error { n++; return fmt.Errorf("attempt %d", n) })
	if want := fmt.Sprintf("timed out after 10ms: attempt %d", n); tb.failed != want {
		t.Fatalf("failure %q, want %q", tb.failed, want)
	}
}

func TestUntilPasses(t *testing.T) {
	var tb fakeTB
	n := 0
	polltest.Until(&tb, time.Second, func() error {
		if n++; n < 2 {
			return errors.New("not yet")
		}
		return nil
	})
	if tb.failed != "" {
		t.Fatalf("failed: %s", tb.failed)
	}
}

func TestForNamesWhat(t *testing.T) {
	var tb fakeTB
	polltest.For(&tb, 10*time.Millisecond, "the answer", func() bool { return false })
	if want := "timed out after 10ms: waiting for the answer"; tb.failed != want {
		t.Fatalf("failure %q, want %q", tb.failed, want)
	}
}
