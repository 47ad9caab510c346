package index_test

import (
	"testing"
	"time"

	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
)

// TestTouchMovesTimesOnly: Touch moves a document's received and expiry
// times, as Expire sees them, and leaves its content indexed as it was.
func TestTouchMovesTimesOnly(t *testing.T) {
	x, err := index.New()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_000_000, 0)
	if err := x.Upsert(scoring.Doc{ID: "a", Name: "translator", Description: "Translates contracts.", IndexedAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	before := x.Stats()
	if x.Touch("b", t0, t0) {
		t.Fatal("Touch of an unknown document reported true")
	}
	if !x.Touch("a", t0.Add(time.Hour), t0.Add(2*time.Hour)) {
		t.Fatal("Touch of an indexed document reported false")
	}
	if after := x.Stats(); after != before {
		t.Fatalf("Touch changed the index: %+v, was %+v", after, before)
	}
	if n := x.Expire(t0.Add(90 * time.Minute)); n != 0 || x.Len() != 1 {
		t.Fatalf("Expire past the old expiry removed %d (len %d): the new expiry was not kept", n, x.Len())
	}
	if n := x.Expire(t0.Add(2 * time.Hour)); n != 1 {
		t.Fatalf("Expire at the new expiry removed %d, want 1", n)
	}
}
