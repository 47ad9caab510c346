package main

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
)

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressLine: nothing for a quick answer; after progressDelay a
// spinner with the elapsed time, erased when the answer comes.
func TestProgressLine(t *testing.T) {
	var quick syncBuffer
	startProgress(&quick, "waiting")()
	if quick.String() != "" {
		t.Fatalf("a quick answer drew %q", quick.String())
	}
	var slow syncBuffer
	start := time.Now()
	stop := startProgress(&slow, "waiting for the node")
	polltest.Until(t, 10*time.Second, func() error {
		if !strings.Contains(slow.String(), "waiting for the node (") {
			return errors.New("no progress line yet: " + slow.String())
		}
		return nil
	})
	if d := time.Since(start); d < progressDelay {
		t.Fatalf("progress line after %s, before progressDelay", d)
	}
	stop()
	if out := slow.String(); !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("progress line not erased: %q", out)
	}
	if isTerminal(&slow) {
		t.Fatal("a buffer taken for a terminal")
	}
}
