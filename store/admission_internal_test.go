package store

import (
	"testing"
	"time"
)

// TestAdmitReservesOnce checks that the check and the reservation are one
// step: of two first admissions of one agent, only the first reserves, so
// only its put may give the place back.
func TestAdmitReservesOnce(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	a := newAdmission(2, 1)
	e := func(id string) *admitEntry {
		return &admitEntry{id: id, firstSeen: now, received: now, expires: now.Add(time.Hour)}
	}
	if ok, victims, refused := a.admit(e("a"), now); !ok || victims != nil || refused != "" {
		t.Fatalf("first admit of a: reserved %v victims %v refused %q, want a reservation", ok, victims, refused)
	}
	if ok, victims, refused := a.admit(e("a"), now); ok || victims != nil || refused != "" {
		t.Fatalf("second admit of a: reserved %v victims %v refused %q, want no reservation (the first put owns it)", ok, victims, refused)
	}
	if n := a.len(); n != 1 {
		t.Fatalf("live set %d after two admits of one agent, want 1", n)
	}
	if ok, _, _ := a.admit(e("b"), now); !ok {
		t.Fatal("admit of b into a store with one free place was not reserved")
	}
	if ok, _, refused := a.admit(e("c"), now); ok || refused != RefusedFull {
		t.Fatalf("admit of c into a full set of fresh cards: reserved %v refused %q, want %q", ok, refused, RefusedFull)
	}
}
