package arrivals_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/arrivals"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// clock returns a time source that advances a second per reading.
func clock() func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func TestFirstRecordWins(t *testing.T) {
	l := arrivals.New(arrivals.WithClock(clock()))
	if !l.Note("agent://a", 1, "gossip") {
		t.Fatal("first record of a/1 not taken")
	}
	if l.Note("agent://a", 1, "dht") {
		t.Fatal("second record of a/1 taken")
	}
	if !l.Note("agent://a", 2, "dht") || !l.Note("agent://b", 1, arrivals.SourceSelf) {
		t.Fatal("records of other versions not taken")
	}
	got := l.List("agent://a")
	want := []nodeapi.Arrival{
		{Agent: "agent://a", Seq: 1, At: time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC), Source: "gossip"},
		{Agent: "agent://a", Seq: 2, At: time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC), Source: "dht"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("List(a) = %v, want %v", got, want)
	}
	if all := l.List(); len(all) != 3 || all[2].Agent != "agent://b" {
		t.Fatalf("List() = %v, want the three records oldest first", all)
	}
}

func TestCapacityForgetsOldest(t *testing.T) {
	l := arrivals.New(arrivals.WithCapacity(3), arrivals.WithClock(clock()))
	for seq := uint64(1); seq <= 5; seq++ {
		l.Note("agent://a", seq, "gossip")
	}
	got := l.List()
	if l.Len() != 3 || len(got) != 3 || got[0].Seq != 3 || got[2].Seq != 5 {
		t.Fatalf("after 5 records in a log of 3: %v, want seqs 3, 4, 5", got)
	}
	// A forgotten version arrives as new again; a held one does not.
	if !l.Note("agent://a", 1, "dht") || l.Note("agent://a", 5, "dht") {
		t.Fatal("forgotten version refused or held version taken again")
	}
	if got := l.List(); got[0].Seq != 4 || got[2].Seq != 1 {
		t.Fatalf("after the forgotten version came back: %v, want seqs 4, 5, 1", got)
	}
}
