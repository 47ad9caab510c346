package peering

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

func TestBackoffBoundedWithJitter(t *testing.T) {
	b := Backoff{Base: 100 * time.Millisecond, Max: time.Second}
	for _, tt := range []struct {
		attempt int
		u       float64
		want    time.Duration
	}{
		{0, 0, 50 * time.Millisecond},
		{0, 0.999999, 100 * time.Millisecond},
		{1, 0, 100 * time.Millisecond},
		{3, 0.5, 600 * time.Millisecond},
		{4, 0, 500 * time.Millisecond}, // 1.6 s capped at 1 s
		{200, 0.999999, time.Second},   // no overflow
	} {
		got := b.Delay(tt.attempt, tt.u)
		if d := got - tt.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("Delay(%d, %v) = %v, want %v", tt.attempt, tt.u, got, tt.want)
		}
	}
}

func TestScheduleOnInjectedClock(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	s := newSchedule(Backoff{Base: time.Second, Max: 4 * time.Second}, func() float64 { return 0.999999 })
	p := peer.ID("p")
	if !s.begin(p, now) {
		t.Fatal("a new peer is not due")
	}
	if s.begin(p, now) {
		t.Fatal("a peer being dialled was due again")
	}
	waits := []time.Duration{}
	for range 5 {
		d := s.failed(p, now)
		waits = append(waits, d.Round(time.Millisecond))
		if s.begin(p, now.Add(d-time.Millisecond)) {
			t.Fatalf("due %v before its wait of %v", time.Millisecond, d)
		}
		now = now.Add(d)
		if !s.begin(p, now) {
			t.Fatalf("not due after its wait of %v", d)
		}
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	if s.failures(p) != 5 {
		t.Errorf("failures %d, want 5", s.failures(p))
	}
	s.succeeded(p, now)
	if !s.begin(p, now.Add(stableAfter)) || s.failures(p) != 0 {
		t.Error("a connection that lasted did not reset the schedule")
	}
}

// TestScheduleFlapping: a peer whose dials connect but whose connections
// drop at once is redialled with backoff, as if its dials failed; once a
// connection lasts, it starts afresh.
func TestScheduleFlapping(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	s := newSchedule(Backoff{Base: time.Second, Max: 4 * time.Second}, func() float64 { return 0.999999 })
	p := peer.ID("p")
	if !s.begin(p, now) {
		t.Fatal("a new peer is not due")
	}
	s.succeeded(p, now)
	var waits []time.Duration
	for range 4 {
		// The connection drops at once: due again only after the backoff.
		next := now
		for !s.begin(p, next) {
			next = next.Add(100 * time.Millisecond)
			if next.Sub(now) > time.Minute {
				t.Fatal("never due again")
			}
		}
		waits = append(waits, next.Sub(now))
		s.succeeded(p, next) // that redial connected too
		now = next
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
		t.Fatalf("waits between redials of a flapping peer %v, want %v", waits, want)
	}
	if !s.begin(p, now.Add(stableAfter)) || s.failures(p) != 0 {
		t.Errorf("after a connection that lasted: failures %d, want 0 and due", s.failures(p))
	}
}

func TestBookPersistedAndBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), KnownFile)
	b, err := loadBook(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0).UTC()
	var ids []peer.ID
	for range 4 {
		_, pk, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := peer.IDFromPublicKey(pk)
		ids = append(ids, id)
	}
	for i, id := range ids {
		b.note(id, []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/" + string(rune('1'+i)) + "000")}, t0.Add(time.Duration(i)*time.Second))
	}
	if err := b.save(); err != nil {
		t.Fatal(err)
	}
	again, err := loadBook(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := again.list()
	if len(got) != 3 || got[0].ID != ids[3] || got[1].ID != ids[2] || got[2].ID != ids[1] {
		t.Fatalf("reloaded %v, want d, c, b (the 3 most recent)", got)
	}
	if got[0].Addrs[0].String() != "/ip4/127.0.0.1/tcp/4000" {
		t.Errorf("d's address %v", got[0].Addrs)
	}
}
