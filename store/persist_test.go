package store_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/store"
)

// crashChildEnv, when set to a directory, turns the test binary into the
// crash child of TestAckedWritesSurviveKill; crashNoSyncEnv makes the child
// open the store WithoutSync.
const (
	crashChildEnv  = "ADPNODE_STORE_CRASH_CHILD"
	crashNoSyncEnv = "ADPNODE_STORE_CRASH_NOSYNC"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir, os.Getenv(crashNoSyncEnv) != ""))
	}
	os.Exit(m.Run())
}

// crashChild opens the store in dir and writes cards of a few agents with
// rising seq and one call record per card, printing "ack card <id> <seq>"
// and "ack call <id> <n>" after each acknowledged write, until it is killed
// (or a safety limit passes).
func crashChild(dir string, noSync bool) int {
	ctx := context.Background()
	opts := []store.Option{store.WithSmallMemory(), store.WithSweepInterval(0)}
	if noSync {
		opts = append(opts, store.WithoutSync())
	}
	s, err := store.Open(dir, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		return 2
	}
	const agents = 4
	keys := make([]crypto.PrivKey, agents)
	for i := range keys {
		if keys[i], _, err = crypto.GenerateEd25519Key(rand.Reader); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	deadline := time.Now().Add(time.Minute)
	for seq := uint64(1); time.Now().Before(deadline); seq++ {
		for _, sk := range keys {
			c, err := buildCard(sk, cardSpec{seq: seq})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			if _, err := s.PutCard(ctx, c, store.SourceGossip, "child"); err != nil {
				fmt.Fprintln(os.Stderr, "put:", err)
				return 2
			}
			fmt.Printf("ack card %s %d\n", c.ID, seq)
			if err := s.RecordCall(ctx, c.ID, true, time.Millisecond); err != nil {
				fmt.Fprintln(os.Stderr, "call:", err)
				return 2
			}
			fmt.Printf("ack call %s %d\n", c.ID, seq)
		}
	}
	return 3 // never killed
}

// TestAckedWritesSurviveKill runs crashChild in a subprocess, SIGKILLs it
// in the middle of its writes, reopens the directory and checks that every
// acknowledged write is there, with syncs and WithoutSync.
func TestAckedWritesSurviveKill(t *testing.T) {
	t.Run("synced", func(t *testing.T) { testSurviveKill(t, false) })
	t.Run("unsynced", func(t *testing.T) { testSurviveKill(t, true) })
}

func testSurviveKill(t *testing.T, noSync bool) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	if noSync {
		cmd.Env = append(cmd.Env, crashNoSyncEnv+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cards := map[string]uint64{}
	calls := map[string]int{}
	acks := 0
	killed := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "ack" {
			t.Fatalf("child printed %q", sc.Text())
		}
		n, err := strconv.ParseUint(f[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		switch f[1] {
		case "card":
			cards[f[2]] = max(cards[f[2]], n)
		case "call":
			calls[f[2]] = max(calls[f[2]], int(n))
		}
		if acks++; acks == 120 && !killed {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, stderr.String())
	}
	if acks < 120 {
		t.Fatalf("only %d acks before the kill", acks)
	}
	t.Logf("child acknowledged %d writes before SIGKILL", acks)

	ctx := context.Background()
	s := openStore(t, dir)
	if s.Count() != len(cards) {
		t.Fatalf("Count = %d, want %d", s.Count(), len(cards))
	}
	for id, seq := range cards {
		rec, err := s.Card(ctx, id)
		if err != nil {
			t.Fatalf("acked card %s lost: %v", id, err)
		}
		if got := seqOf(rec.Card); got < seq {
			t.Fatalf("%s: seq %d on disk, %d acknowledged", id, got, seq)
		}
		if err := rec.Card.Verify(); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	for id, n := range calls {
		st, err := s.Stats(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Calls < n {
			t.Fatalf("%s: %d calls on disk, %d acknowledged", id, st.Calls, n)
		}
	}
	if c := s.Corrupt(); len(c) != 0 {
		t.Fatalf("corrupt values after a crash: %v", c)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	dir := t.TempDir()
	s, err := store.Open(dir, store.WithSmallMemory(), store.WithSweepInterval(0), store.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for i := range 5 {
		c := makeCard(t, newKey(t), cardSpec{seq: uint64(i + 1), ttl: int64(100 + i)})
		put(t, s, c, store.SourceDHT)
		live = append(live, c.ID)
	}
	revoker := newKey(t)
	old := makeCard(t, revoker, cardSpec{seq: 1})
	put(t, s, old, store.SourceGossip)
	put(t, s, makeCard(t, revoker, cardSpec{seq: 2, revoke: true}), store.SourceGossip)
	before := map[string]*store.Record{}
	for _, id := range live {
		before[id], _ = s.Card(ctx, id)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, dir, store.WithClock(clk.Now))
	if s.Count() != len(live) {
		t.Fatalf("Count after reopen = %d, want %d", s.Count(), len(live))
	}
	for _, id := range live {
		rec, err := s.Card(ctx, id)
		if err != nil {
			t.Fatalf("%s after reopen: %v", id, err)
		}
		b := before[id]
		if string(rec.Card.Raw()) != string(b.Card.Raw()) || !rec.ReceivedAt.Equal(b.ReceivedAt) ||
			!rec.ExpiresAt.Equal(b.ExpiresAt) || rec.Source != b.Source || rec.Origin != b.Origin {
			t.Fatalf("%s changed across reopen:\n got %+v\nwant %+v", id, rec, b)
		}
	}
	if _, err := s.Card(ctx, old.ID); !errors.Is(err, store.ErrRevoked) {
		t.Fatalf("revoked agent after reopen: %v", err)
	}
	if put(t, s, old, store.SourceGossip) {
		t.Fatal("tombstone lost across reopen: older card stored")
	}
}

// TestCorruptValuesSkipped writes garbage straight into Badger and checks
// the store reports and skips it, and that a new card replaces it.
func TestCorruptValuesSkipped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(dir, store.WithSmallMemory(), store.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	good := makeCard(t, newKey(t), cardSpec{seq: 1})
	badHeaderKey, badCardKey := newKey(t), newKey(t)
	badHeader := makeCard(t, badHeaderKey, cardSpec{seq: 1})
	badCard := makeCard(t, badCardKey, cardSpec{seq: 1})
	put(t, s, good, store.SourceGossip)
	put(t, s, badHeader, store.SourceGossip)
	put(t, s, badCard, store.SourceGossip)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(2 << 20).
		WithValueThreshold(128 << 10).WithBlockCacheSize(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	// A valid header (version 1, source "gossip", no origin, times) in
	// front of bytes that are not a card.
	notACard := append([]byte{1, 6}, "gossip"...)
	notACard = append(notACard, 0, 2, 4)
	notACard = append(notACard, `{"id": 7`...)
	otherAgent := "agent://" + "k51" + strings.Repeat("z", 59) // a key that is not even an agent id
	err = db.Update(func(txn *badger.Txn) error {
		return errors.Join(
			txn.Set([]byte("c/"+badHeader.ID), []byte{9, 9, 9}),
			txn.Set([]byte("c/"+badCard.ID), notACard),
			txn.Set([]byte("i/"+good.ID+"/s"), []byte{1, 200}),
			txn.Set([]byte("t/"+otherAgent), nil),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, dir)
	if s.Count() != 1 {
		t.Fatalf("Count = %d, want 1 (the good card)", s.Count())
	}
	reported := map[string]bool{}
	for _, e := range s.Corrupt() {
		var ce *store.CorruptError
		if !errors.As(e, &ce) || !errors.Is(e, store.ErrCorrupt) {
			t.Fatalf("report %v is not a CorruptError", e)
		}
		reported[ce.Key] = true
	}
	for _, k := range []string{"c/" + badHeader.ID, "c/" + badCard.ID, "i/" + good.ID + "/s"} {
		if !reported[k] {
			t.Errorf("%s not reported; reports: %v", k, s.Corrupt())
		}
	}
	if _, err := s.Card(ctx, badHeader.ID); !errors.Is(err, store.ErrNotFound) || !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Card of corrupt value: %v", err)
	}
	n := 0
	if err := s.Cards(ctx, func(r *store.Record) bool { n++; return r.AgentID == good.ID }); err != nil || n != 1 {
		t.Fatalf("Cards saw %d (%v), want the good card only", n, err)
	}
	if st, err := s.Stats(ctx, good.ID); err != nil || st != (store.Stats{}) {
		t.Fatalf("corrupt stats: %+v %v", st, err)
	}
	if _, err := s.Sweep(ctx); err != nil {
		t.Fatalf("Sweep over corrupt values: %v", err)
	}
	// A newer card replaces the corrupt value.
	if !put(t, s, makeCard(t, badCardKey, cardSpec{seq: 2}), store.SourceGossip) {
		t.Fatal("card not stored over a corrupt value")
	}
	if s.Count() != 2 {
		t.Fatalf("Count = %d, want 2", s.Count())
	}
	if err := s.RecordCall(ctx, good.ID, true, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats(ctx, good.ID); st.Calls != 1 {
		t.Fatalf("stats after overwrite: %+v", st)
	}
}
