package adp_test

import (
	"math"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
)

func card(seq int64, signed bool, updated string) *adp.Card {
	c := &adp.Card{ID: "agent://x", Name: "n"}
	if seq >= 0 {
		s := uint64(seq)
		c.Seq = &s
	}
	if signed {
		c.Signature = "sig"
	}
	if updated != "" {
		c.Metadata = &adp.Metadata{UpdatedAt: updated}
	}
	return c
}

// cardSeq returns a card with an arbitrary uint64 seq.
func cardSeq(seq uint64, signed bool) *adp.Card {
	c := card(noSeq, signed, "")
	c.Seq = &seq
	return c
}

const (
	noSeq   = -1
	t1      = "2026-03-24T12:00:00Z"
	t2      = "2026-03-24T12:00:01Z"
	t2Offst = "2026-03-24T14:00:01+02:00" // the same instant as t2
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b *adp.Card
		want int
	}{
		{"both nil", nil, nil, 0},
		{"nil loses", card(1, true, ""), nil, 1},
		// Rule 2: seq decides.
		{"higher seq, both signed", card(5, true, ""), card(4, true, ""), 1},
		{"lower seq, both signed", card(4, true, ""), card(5, true, ""), -1},
		{"higher seq, both unsigned", card(5, false, ""), card(4, false, ""), 1},
		{"higher seq signed over lower unsigned", card(5, true, ""), card(4, false, ""), 1},
		{"unsigned with strictly higher seq supersedes signed (ADP 3.2)", card(5, false, ""), card(4, true, ""), 1},
		{"unsigned never supersedes signed with higher seq", card(4, false, ""), card(5, true, ""), -1},
		{"seq beats a later updated_at", card(5, true, t1), card(4, true, t2), 1},
		{"present seq beats absent seq", card(0, true, t1), card(noSeq, true, t2), 1},
		{"absent seq loses to present seq", card(noSeq, true, t2), card(0, true, t1), -1},
		{"unsigned with seq over signed without seq", card(0, false, ""), card(noSeq, true, t2), 1},
		{"seqs beyond int64", cardSeq(math.MaxUint64, true), cardSeq(1<<63, true), 1},
		{"seqs straddling int64", cardSeq(1<<63, true), cardSeq(math.MaxInt64, true), 1},
		// Rule 3: equal seq, signed beats unsigned.
		{"equal seq, signed over unsigned", card(5, true, ""), card(5, false, ""), 1},
		{"equal seq, unsigned never supersedes signed", card(5, false, t2), card(5, true, t1), -1},
		{"no seq, signed over unsigned despite later updated_at", card(noSeq, false, t2), card(noSeq, true, t1), -1},
		// Rule 4: updated_at.
		{"no seq, later updated_at", card(noSeq, false, t2), card(noSeq, false, t1), 1},
		{"no seq, earlier updated_at", card(noSeq, true, t1), card(noSeq, true, t2), -1},
		{"equal seq, later updated_at", card(3, true, t2), card(3, true, t1), 1},
		{"valid timestamp beats missing", card(noSeq, false, t1), card(noSeq, false, ""), 1},
		{"valid timestamp beats unparsable", card(noSeq, false, "yesterday"), card(noSeq, false, t1), -1},
		{"same instant in two zones", card(noSeq, false, t2), card(noSeq, false, t2Offst), 0},
		// Rule 5: full ties.
		{"identical", card(3, true, t1), card(3, true, t1), 0},
		{"no seq, no time", card(noSeq, false, ""), card(noSeq, false, ""), 0},
		{"no seq, no time, signed over unsigned", card(noSeq, true, ""), card(noSeq, false, ""), 1},
		{"identical unsigned", card(7, false, t1), card(7, false, t1), 0},
		{"both unparsable", card(1, false, "x"), card(1, false, "y"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := adp.Compare(tc.a, tc.b)
			if sign(got) != tc.want {
				t.Fatalf("Compare = %d, want %d", got, tc.want)
			}
			if back := adp.Compare(tc.b, tc.a); sign(back) != -tc.want {
				t.Fatalf("Compare reversed = %d, want %d (antisymmetry)", back, -tc.want)
			}
		})
	}
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

func TestTTL(t *testing.T) {
	def := 5 * time.Minute
	ttl := func(n int64) *adp.Card { return &adp.Card{Metadata: &adp.Metadata{TTL: &n}} }
	for _, tc := range []struct {
		c    *adp.Card
		want time.Duration
	}{
		{&adp.Card{}, def},
		{&adp.Card{Metadata: &adp.Metadata{}}, def},
		{ttl(3600), time.Hour},
		{ttl(0), 0},
		{ttl(-5), def},
		{ttl(adp.MaxSeq), time.Duration(1<<63 - 1).Truncate(time.Second)},
	} {
		if got := tc.c.TTL(def); got != tc.want {
			t.Errorf("TTL = %v, want %v", got, tc.want)
		}
	}
}
