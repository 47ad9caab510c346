package gossip

import (
	"crypto/sha256"
	"sync"
)

// maxVerified bounds the card encodings remembered as verified.
const maxVerified = 4096

// verifiedSet remembers the sha256 of card encodings that passed
// adp's validation and signature check, so a re-broadcast of an unchanged
// card (the common message on the topic) costs a parse, not a signature
// verification, at every node it crosses. Only successes are remembered:
// a bad card costs a full check every time. Eviction is first in, first
// out. Safe for concurrent use.
type verifiedSet struct {
	mu   sync.Mutex
	ok   map[[sha256.Size]byte]struct{}
	ring [][sha256.Size]byte
	next int
}

func newVerifiedSet() *verifiedSet {
	return &verifiedSet{ok: make(map[[sha256.Size]byte]struct{})}
}

func (s *verifiedSet) has(k [sha256.Size]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ok[k]
	return ok
}

func (s *verifiedSet) add(k [sha256.Size]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.ok[k]; dup {
		return
	}
	if len(s.ring) < maxVerified {
		s.ring = append(s.ring, k)
	} else {
		delete(s.ok, s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % maxVerified
	}
	s.ok[k] = struct{}{}
}

func (s *verifiedSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ok)
}
