package ratelimit

import (
	"container/list"
	"math"
	"sync"
	"time"
)

// DefaultMaxKeys bounds a Limiter's table when no WithMaxKeys is given.
const DefaultMaxKeys = 10000

// Rate is a token bucket's refill rate and size.
type Rate struct {
	PerSecond float64 // tokens added per second; > 0
	Burst     float64 // bucket size, and a new key's tokens; >= 1
}

// valid reports whether r can admit a request.
func (r Rate) valid() bool { return r.PerSecond > 0 && r.Burst >= 1 }

// Limiter is a table of token buckets, one per key, at most MaxKeys of
// them (least recently used dropped first). Safe for concurrent use.
type Limiter struct {
	rate Rate
	max  int
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket
	lru     *list.List               // front: most recently used
	evicted uint64
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time // when tokens was computed
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(l *Limiter) { l.now = now } }

// WithMaxKeys bounds the table (default DefaultMaxKeys; values below 1
// are ignored).
func WithMaxKeys(n int) Option {
	return func(l *Limiter) {
		if n >= 1 {
			l.max = n
		}
	}
}

// New returns a Limiter admitting rate per key. A rate that is not valid
// (PerSecond <= 0 or Burst < 1) admits nothing but is never an error, so
// that a misconfiguration fails closed.
func New(rate Rate, opts ...Option) *Limiter {
	l := &Limiter{rate: rate, max: DefaultMaxKeys, now: time.Now, buckets: make(map[string]*list.Element), lru: list.New()}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Allow takes one token from key's bucket. When the bucket is empty it
// takes nothing and returns false with the time until a token is
// available.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if !l.rate.valid() {
		return false, time.Second
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	need := (1 - b.tokens) / l.rate.PerSecond
	return false, time.Duration(math.Ceil(need * float64(time.Second)))
}

// Refund gives back a token taken by Allow (a request another limit then
// refused), never beyond the bucket's size.
func (l *Limiter) Refund(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.buckets[key]; ok {
		b := e.Value.(*bucket)
		b.tokens = math.Min(b.tokens+1, l.rate.Burst)
	}
}

// get returns key's bucket refilled to now, creating it (and dropping
// the least recently used bucket when the table is full). l.mu is held.
func (l *Limiter) get(key string, now time.Time) *bucket {
	if e, ok := l.buckets[key]; ok {
		l.lru.MoveToFront(e)
		b := e.Value.(*bucket)
		if dt := now.Sub(b.at); dt > 0 {
			b.tokens = math.Min(l.rate.Burst, b.tokens+dt.Seconds()*l.rate.PerSecond)
			b.at = now
		}
		return b
	}
	for len(l.buckets) >= l.max {
		old := l.lru.Back()
		l.lru.Remove(old)
		delete(l.buckets, old.Value.(*bucket).key)
		l.evicted++
	}
	b := &bucket{key: key, tokens: l.rate.Burst, at: now}
	l.buckets[key] = l.lru.PushFront(b)
	return b
}

// Len returns the number of keys held.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// Evicted returns how many keys were dropped to keep the table bounded.
func (l *Limiter) Evicted() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.evicted
}
