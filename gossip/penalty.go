package gossip

import (
	"math"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Rejection penalty: the part of a peer's score that the topic validator's
// Rejects make. It replaces GossipSub's own invalid-message counter (P4),
// which also counts a message that a peer forwards back to its publisher
// (pubsub's "self originated message"): gossipsub implementations other
// than go-libp2p's (js-libp2p-gossipsub 17.x among them) may honestly do
// that, and a node must not prune them for it.
const (
	// rejectionWeight multiplies the square of the decayed count, as P4's
	// weight did: one Reject costs 100, five reach the graylist.
	rejectionWeight = -100
	// rejectionDecay is the time the count takes to fall to about 1 %.
	rejectionDecay = time.Hour
	// maxRejecting is the peers tracked past which a new one first
	// sweeps away the entries that decayed to zero, at most once per
	// decay interval (so each new peer does not scan them all); the new
	// peer is counted anyway (a rejecting peer is never forgotten to make
	// room).
	maxRejecting = 4096
)

// rejections counts, per peer, the messages it relayed that the validator
// rejected, decaying as GossipSub's counters do (by pubsub's
// ScoreParameterDecay(rejectionDecay) per DecayInterval, and to zero below
// DecayToZero). It is safe for concurrent use.
type rejections struct {
	now      func() time.Time
	decay    float64 // factor per interval
	interval time.Duration

	mu     sync.Mutex
	peers  map[peer.ID]rejectCount
	swept  time.Time // the last sweep
	sweeps int       // sweeps made (for tests)
}

type rejectCount struct {
	n  float64
	at time.Time // when n was last decayed
}

func newRejections(now func() time.Time) *rejections {
	return &rejections{
		now:      now,
		decay:    pubsub.ScoreParameterDecay(rejectionDecay),
		interval: pubsub.DefaultDecayInterval,
		peers:    make(map[peer.ID]rejectCount),
	}
}

// decayed returns c's count at t.
func (r *rejections) decayed(c rejectCount, t time.Time) float64 {
	steps := float64(t.Sub(c.at)) / float64(r.interval)
	if steps <= 0 {
		return c.n
	}
	n := c.n * math.Pow(r.decay, steps)
	if n < pubsub.DefaultDecayToZero {
		return 0
	}
	return n
}

// add counts one rejected message relayed by p.
func (r *rejections) add(p peer.ID) {
	t := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.peers[p]; !ok && len(r.peers) >= maxRejecting && t.Sub(r.swept) >= r.interval {
		r.swept = t
		r.sweeps++
		for q, c := range r.peers {
			if r.decayed(c, t) == 0 {
				delete(r.peers, q)
			}
		}
	}
	r.peers[p] = rejectCount{n: r.decayed(r.peers[p], t) + 1, at: t}
}

// score returns p's rejection penalty: rejectionWeight times the square of
// its decayed count (0 for a peer with none).
func (r *rejections) score(p peer.ID) float64 {
	t := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.peers[p]
	if !ok {
		return 0
	}
	n := r.decayed(c, t)
	if n == 0 {
		delete(r.peers, p)
		return 0
	}
	return rejectionWeight * n * n
}
