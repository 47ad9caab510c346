// Package aitptest helps the tests of aitp handlers and callers: Chunks
// records what a handler writes; Pair is a caller and a callee host, an
// AITP client on the one and a server on the other. Only tests import
// it.
package aitptest

import "sync"

// Chunks is an aitp.ResponseWriter that keeps each write, in order: one
// reply, or one chunk of a streamed reply. Safe for concurrent use.
type Chunks struct {
	mu  sync.Mutex
	got []string
}

// Write keeps p.
func (c *Chunks) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, string(p))
	return len(p), nil
}

// Got returns the writes so far.
func (c *Chunks) Got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}
