package gossip

import (
	"fmt"
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

// TestRejectionSweep: past maxRejecting peers a new one sweeps the decayed
// entries at most once per decay interval, keeps every rejecting peer, and
// a sweep after the counts decayed leaves only the new peer.
func TestRejectionSweep(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	r := newRejections(func() time.Time { return now })
	for i := range maxRejecting {
		r.add(peer.ID(fmt.Sprintf("p%d", i)))
	}
	if r.sweeps != 0 {
		t.Fatalf("%d sweeps below the bound", r.sweeps)
	}
	for i := range 100 {
		r.add(peer.ID(fmt.Sprintf("q%d", i)))
	}
	if r.sweeps != 1 || len(r.peers) != maxRejecting+100 {
		t.Fatalf("100 new peers in one interval: %d sweeps, %d tracked; want 1 and %d", r.sweeps, len(r.peers), maxRejecting+100)
	}
	now = now.Add(r.interval)
	r.add("r")
	if r.sweeps != 2 || len(r.peers) != maxRejecting+101 {
		t.Fatalf("a new peer an interval later: %d sweeps, %d tracked; want 2 and %d", r.sweeps, len(r.peers), maxRejecting+101)
	}
	now = now.Add(20 * rejectionDecay)
	r.add("s")
	if r.sweeps != 3 || len(r.peers) != 1 || r.score("s") != rejectionWeight {
		t.Fatalf("after the counts decayed: %d sweeps, %d tracked", r.sweeps, len(r.peers))
	}
}
