package gossip

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
)

func signedCard(t *testing.T, seq uint64, name string) (*adp.Card, func(uint64, string) *adp.Card) {
	t.Helper()
	sk, err := p2pnet.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(seq uint64, name string) *adp.Card { return cardtest.Signed(t, sk, seq, name) }
	return mk(seq, name), mk
}

// TestAdmitVerdicts walks one publisher through the freshness step: a new
// card, its re-broadcasts (newer messages), a replay of an old message, an
// older card, a conflicting card of the same seq, and the held card
// deciding once the short-term memory has lapsed.
func TestAdmitVerdicts(t *testing.T) {
	v1, mk := signedCard(t, 1, "alpha")
	v2 := mk(2, "alpha")
	v2other := mk(2, "alpha-conflict")
	owner, err := v1.PeerID()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRecent(func() time.Time { return now })
	var held *adp.Card
	heldFn := func(string) *adp.Card { return held }

	steps := []struct {
		name    string
		c       *adp.Card
		seqno   uint64
		advance time.Duration
		want    verdict
	}{
		{"first card", v1, 10, 0, verdictNewer},
		{"same card, newer message", v1, 11, 0, verdictRefresh},
		{"same card, same message again", v1, 11, 0, verdictReplayed},
		{"same card, old message", v1, 5, 0, verdictReplayed},
		{"newer card, old message", v2, 3, 0, verdictNewer},
		{"older card, newer message", v1, 20, 0, verdictOlder},
		{"conflicting card of the same seq", v2other, 21, 0, verdictOlder},
		{"memory lapsed, nothing held", v2, 4, time.Minute, verdictNewer},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if got := r.admit(owner, s.c, s.seqno, heldFn, nil); got != s.want {
			t.Fatalf("%s: verdict %d, want %d", s.name, got, s.want)
		}
	}

	// Past the memory, the held card decides alone; the replay guard
	// outlives the card memory. The highest seqno relayed is 11: ignored
	// messages do not count.
	now = now.Add(time.Minute)
	held = v2
	if got := r.admit(owner, v2, 11, heldFn, nil); got != verdictReplayed {
		t.Fatalf("held card in an old message: verdict %d, want replayed", got)
	}
	if got := r.admit(owner, v2, 12, heldFn, nil); got != verdictRefresh {
		t.Fatalf("held card in a new message: verdict %d, want refresh", got)
	}
	if got := r.admit(owner, v1, 13, heldFn, nil); got != verdictOlder {
		t.Fatalf("card older than the held one: verdict %d, want older", got)
	}
}

// TestAdmitHoldsExactly: a re-broadcast of the held card's very bytes is
// judged without decoding the held card; a card of other bytes still is.
func TestAdmitHoldsExactly(t *testing.T) {
	v1, mk := signedCard(t, 1, "alpha")
	v2 := mk(2, "alpha")
	owner, err := v1.PeerID()
	if err != nil {
		t.Fatal(err)
	}
	r := newRecent(time.Now)
	heldCalls := 0
	held := func(string) *adp.Card { heldCalls++; return v1 }
	holds := func(id string, raw []byte) bool { return id == v1.ID && string(raw) == string(v1.Raw()) }
	if got := r.admit(owner, v1, 10, held, holds); got != verdictRefresh {
		t.Fatalf("the held card again: verdict %d, want refresh", got)
	}
	if heldCalls != 0 {
		t.Fatalf("Held called %d times for the held card's own bytes", heldCalls)
	}
	if got := r.admit(owner, v1, 10, held, holds); got != verdictReplayed {
		t.Fatalf("the same message again: verdict %d, want replayed", got)
	}
	if got := r.admit(owner, v2, 11, held, holds); got != verdictNewer || heldCalls != 1 {
		t.Fatalf("a newer card: verdict %d with %d Held calls, want newer with 1", got, heldCalls)
	}
}

func TestMsgSeqno(t *testing.T) {
	b := binary.BigEndian.AppendUint64(nil, 1<<40+7)
	if got := msgSeqno(b); got != 1<<40+7 {
		t.Fatalf("msgSeqno = %d", got)
	}
	for _, bad := range [][]byte{nil, {1}, make([]byte, 9)} {
		if got := msgSeqno(bad); got != 0 {
			t.Fatalf("msgSeqno(%x) = %d, want 0", bad, got)
		}
	}
}

// TestRecentBounded fills the memory past maxRecent publishers: it stays
// bounded and keeps the last one admitted.
func TestRecentBounded(t *testing.T) {
	c, _ := signedCard(t, 1, "alpha")
	r := newRecent(time.Now)
	for i := range maxRecent + 10 {
		if got := r.admit(peerIDFor(i), c, 1, nil, nil); got != verdictNewer {
			t.Fatalf("publisher %d: verdict %d", i, got)
		}
	}
	if n := len(r.cards); n > maxRecent {
		t.Fatalf("%d publishers remembered, bound %d", n, maxRecent)
	}
	if _, ok := r.cards[peerIDFor(maxRecent+9)]; !ok {
		t.Fatal("the last publisher was forgotten")
	}
}

// peerIDFor returns a distinct map key; recent never decodes it.
func peerIDFor(i int) peer.ID { return peer.ID(fmt.Sprintf("peer-%d", i)) }

// TestNextWaitJitter: every wait lies within the interval plus or minus
// the jitter, and the waits spread over that range.
func TestNextWaitJitter(t *testing.T) {
	g := &Gossip{cfg: config{interval: 100 * time.Millisecond, jitter: 20 * time.Millisecond}}
	lo, hi := time.Hour, time.Duration(0)
	for range 2000 {
		w := g.nextWait()
		if w < 80*time.Millisecond || w > 120*time.Millisecond {
			t.Fatalf("wait %v outside 100ms ± 20ms", w)
		}
		lo, hi = min(lo, w), max(hi, w)
	}
	if lo > 85*time.Millisecond || hi < 115*time.Millisecond {
		t.Fatalf("waits span only [%v, %v]", lo, hi)
	}
	g.cfg.jitter = 0
	if w := g.nextWait(); w != 100*time.Millisecond {
		t.Fatalf("wait without jitter %v", w)
	}
}
