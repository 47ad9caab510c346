// Package digestset is a bounded set of SHA-256 digests with first-in,
// first-out eviction. The DHT and gossip validators use it to remember the
// card encodings whose signatures they have already verified, so a card
// heard many times is verified once, and (adp.Checker) those whose
// signature did not verify. It remembers only what was added: what a
// digest stands for is the caller's to decide.
package digestset

import (
	"crypto/sha256"
	"sync"
)

// Digest is a SHA-256 digest.
type Digest = [sha256.Size]byte

// Set remembers at most its size of digests, forgetting the oldest first.
// Safe for concurrent use.
type Set struct {
	size int
	mu   sync.Mutex
	ok   map[Digest]struct{}
	ring []Digest // insertion order, for eviction
	next int
}

// New returns an empty set that holds at most size digests (size >= 1).
func New(size int) *Set {
	if size < 1 {
		size = 1
	}
	return &Set{size: size, ok: make(map[Digest]struct{}, size), ring: make([]Digest, 0, size)}
}

// Has reports whether d is remembered.
func (s *Set) Has(d Digest) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ok[d]
	return ok
}

// Add remembers d, forgetting the oldest digest when the set is full.
func (s *Set) Add(d Digest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.ok[d]; dup {
		return
	}
	if len(s.ring) < s.size {
		s.ring = append(s.ring, d)
	} else {
		delete(s.ok, s.ring[s.next])
		s.ring[s.next] = d
		s.next = (s.next + 1) % s.size
	}
	s.ok[d] = struct{}{}
}

// Len returns how many digests are remembered.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ok)
}
