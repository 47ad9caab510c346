package gossip

import (
	"math"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

func TestRejectionPenalty(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	r := newRejections(func() time.Time { return now })
	p, q := peer.ID("p"), peer.ID("q")
	if s := r.score(p); s != 0 {
		t.Fatalf("score with no rejection %v, want 0", s)
	}
	r.add(p)
	if s := r.score(p); s != rejectionWeight {
		t.Errorf("one rejection: %v, want %v", s, float64(rejectionWeight))
	}
	r.add(p)
	if s := r.score(p); s != 4*rejectionWeight {
		t.Errorf("two rejections: %v, want %v", s, float64(4*rejectionWeight))
	}
	if s := r.score(q); s != 0 {
		t.Errorf("another peer: %v, want 0", s)
	}
	now = now.Add(rejectionDecay)
	// 1 % of the count of 2 is left: 100 × 0.02².
	if s := r.score(p); math.Abs(s-rejectionWeight*0.02*0.02) > 0.001 {
		t.Errorf("after %v: %v, want about %v", rejectionDecay, s, rejectionWeight*0.02*0.02)
	}
	now = now.Add(10 * rejectionDecay)
	if s := r.score(p); s != 0 {
		t.Errorf("long after: %v, want 0", s)
	}
	if len(r.peers) != 0 {
		t.Errorf("%d peers still tracked after decay", len(r.peers))
	}
}
