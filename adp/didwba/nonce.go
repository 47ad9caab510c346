package didwba

import (
	"container/heap"
	"sync"
	"time"
)

// nonceCache remembers the nonces of accepted DIDWba headers until their
// timestamp leaves the window, when the timestamp check alone refuses a
// replay. It holds at most max entries: when full of live ones it drops
// the one whose timestamp is oldest and refuses, from then on, every
// timestamp at or before that one, so that a forgotten nonce can never be
// replayed. Safe for concurrent use.
type nonceCache struct {
	mu    sync.Mutex
	max   int
	seen  map[string]struct{}
	order nonceHeap
	floor time.Time
}

func newNonceCache(max int) *nonceCache {
	return &nonceCache{max: max, seen: make(map[string]struct{})}
}

type nonceEntry struct {
	key string
	ts  time.Time
}

type nonceHeap []nonceEntry

func (h nonceHeap) Len() int           { return len(h) }
func (h nonceHeap) Less(i, j int) bool { return h[i].ts.Before(h[j].ts) }
func (h nonceHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nonceHeap) Push(x any)        { *h = append(*h, x.(nonceEntry)) }
func (h *nonceHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// check reports ErrNonce when key was accepted before and ErrTimestamp
// when ts is at or before the floor; it records nothing.
func (c *nonceCache) check(key string, ts time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checkLocked(key, ts)
}

func (c *nonceCache) checkLocked(key string, ts time.Time) error {
	if !ts.After(c.floor) {
		return ErrTimestamp
	}
	if _, ok := c.seen[key]; ok {
		return ErrNonce
	}
	return nil
}

// add records key with its header's timestamp ts, after the same checks
// as check (a concurrent request may have added it since); entries whose
// timestamp is before oldest are dropped first.
func (c *nonceCache) add(key string, ts, oldest time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkLocked(key, ts); err != nil {
		return err
	}
	for len(c.order) > 0 && c.order[0].ts.Before(oldest) {
		delete(c.seen, heap.Pop(&c.order).(nonceEntry).key)
	}
	for len(c.order) >= c.max {
		e := heap.Pop(&c.order).(nonceEntry)
		delete(c.seen, e.key)
		if e.ts.After(c.floor) {
			c.floor = e.ts
		}
	}
	if !ts.After(c.floor) {
		return ErrTimestamp
	}
	c.seen[key] = struct{}{}
	heap.Push(&c.order, nonceEntry{key: key, ts: ts})
	return nil
}
