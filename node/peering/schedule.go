package peering

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// stableAfter is how long a connection made by a dial must last for the
// peer's failures to start afresh: one that drops sooner (a peer that
// accepts and then closes, or a flapping link) counts as a failure of
// its dial, so that such a peer is redialled with backoff too.
const stableAfter = time.Minute

// schedule keeps, per peer that failed to dial or whose last dial
// connected, the failures so far and when the next attempt is due. It is
// safe for concurrent use.
type schedule struct {
	backoff Backoff
	rand    func() float64

	mu    sync.Mutex
	peers map[peer.ID]attempt
}

type attempt struct {
	failures  int
	next      time.Time
	dialling  bool
	connected time.Time // when the last dial connected; zero otherwise
}

func newSchedule(b Backoff, rand func() float64) *schedule {
	return &schedule{backoff: b, rand: rand, peers: make(map[peer.ID]attempt)}
}

// begin reports whether p may be dialled at now (no dial under way, the
// next attempt due) and, if so, marks a dial under way.
func (s *schedule) begin(p peer.ID, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.peers[p]
	if a.dialling || now.Before(a.next) {
		return false
	}
	if !a.connected.IsZero() {
		// The connection of the last dial is gone (the peer is dialled
		// again only when it is not connected).
		if now.Sub(a.connected) >= stableAfter {
			a.failures = 0
		} else {
			a.next = a.connected.Add(s.backoff.Delay(a.failures, s.rand()))
			a.failures++
		}
		a.connected = time.Time{}
		if now.Before(a.next) {
			s.peers[p] = a
			return false
		}
	}
	a.dialling = true
	s.peers[p] = a
	return true
}

// failed ends a dial that failed at now and returns the wait before the
// next attempt.
func (s *schedule) failed(p peer.ID, now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.peers[p]
	d := s.backoff.Delay(a.failures, s.rand())
	s.peers[p] = attempt{failures: a.failures + 1, next: now.Add(d)}
	return d
}

// succeeded ends a dial that connected at now: p starts afresh once the
// connection has lasted stableAfter (see begin).
func (s *schedule) succeeded(p peer.ID, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.peers[p]
	s.peers[p] = attempt{failures: a.failures, connected: now}
}

// failures returns p's consecutive failures.
func (s *schedule) failures(p peer.ID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers[p].failures
}
