package p2phost

import (
	"errors"
	"testing"
)

// TestCloseWithin: a close that finishes returns its own result; one that
// blocks is given up on after the wait, with an error, and left running.
func TestCloseWithin(t *testing.T) {
	errClose := errors.New("close failed")
	if err := closeWithin(func() error { return errClose }, CloseWait); !errors.Is(err, errClose) {
		t.Fatalf("finished close: %v, want %v", err, errClose)
	}
	if err := closeWithin(func() error { return nil }, CloseWait); err != nil {
		t.Fatalf("finished close: %v", err)
	}
	release := make(chan struct{})
	defer close(release)
	if err := closeWithin(func() error { <-release; return nil }, 0); err == nil {
		t.Fatal("a close that never finished was reported done")
	}
}
