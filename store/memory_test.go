package store_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// heapAfter returns the live heap after open, with the store still open.
func heapAfter(tb testing.TB, open func() *store.Store) (uint64, *store.Store) {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := open()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, s
	}
	return after.HeapAlloc - before.HeapAlloc, s
}

// TestSmallMemoryFootprint: a small-memory store holds a few MiB of heap,
// so a testnet of many nodes fits in one process.
func TestSmallMemoryFootprint(t *testing.T) {
	const limit = 16 << 20
	heap, s := heapAfter(t, func() *store.Store {
		s, err := store.Open(t.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	defer s.Close()
	t.Logf("small-memory store: %.1f MiB of heap", float64(heap)/(1<<20))
	if heap > limit {
		t.Fatalf("small-memory store holds %.1f MiB, want under %d MiB", float64(heap)/(1<<20), limit>>20)
	}
}

// TestSmallMemoryLargestCard: the small-memory memtable takes the
// largest transaction a store writes, a card of about adp.MaxCardSize (and
// its revocation, which deletes the card and writes a tombstone in one
// transaction), and the card reads back after a reopen.
func TestSmallMemoryLargestCard(t *testing.T) {
	dir := t.TempDir()
	sk := newKey(t)
	big := makeCard(t, sk, cardSpec{seq: 1, padding: adp.MaxCardSize - 2048})
	if n := len(big.Raw()); n < adp.MaxCardSize-2048 || n > adp.MaxCardSize {
		t.Fatalf("card of %d bytes, want just under %d", n, adp.MaxCardSize)
	}
	s := openWith(t, dir, nil)
	const versions = 20 // 1.2 MiB: more than a memtable holds, so one is flushed to a table
	for i := range versions {
		c := makeCard(t, sk, cardSpec{seq: uint64(i + 1), padding: adp.MaxCardSize - 2048})
		if !put(t, s, c, store.SourceGossip) {
			t.Fatalf("version %d not stored", i+1)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openWith(t, dir, nil)
	rec, err := s.Card(context.Background(), big.ID)
	if err != nil {
		t.Fatalf("Card after reopen: %v", err)
	}
	if got := len(rec.Card.Raw()); got < adp.MaxCardSize-2048 {
		t.Fatalf("card after reopen has %d bytes", got)
	}
	if !put(t, s, makeCard(t, sk, cardSpec{seq: versions + 1, revoke: true}), store.SourceGossip) {
		t.Fatal("revocation not stored")
	}
	if _, err := s.Tombstone(context.Background(), big.ID); err != nil {
		t.Fatalf("Tombstone: %v", err)
	}
}

// BenchmarkOpenHeap reports the heap an open store holds with the default
// and the small-memory options, and their ratio.
func BenchmarkOpenHeap(b *testing.B) {
	var small, def uint64
	for range b.N {
		h, s := heapAfter(b, func() *store.Store {
			s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
		s.Close()
		small = max(small, h)
		h, s = heapAfter(b, func() *store.Store {
			s, err := store.Open(b.TempDir(), store.WithSweepInterval(0))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
		s.Close()
		def = max(def, h)
	}
	b.ReportMetric(float64(small)/(1<<20), "MiB_small")
	b.ReportMetric(float64(def)/(1<<20), "MiB_default")
	if small > 0 {
		b.ReportMetric(float64(def)/float64(small), "x_small")
	}
}

// TestSmallMemoryReadsCompressedTables: a store written with the default
// options (Snappy-compressed tables, a block cache) opens with
// WithSmallMemory (no compression, no cache) and reads every card back;
// each table records its own compression.
func TestSmallMemoryReadsCompressedTables(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(dir, store.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 50 {
		c := makeCard(t, newKey(t), cardSpec{seq: 1, padding: 4096})
		put(t, s, c, store.SourceGossip)
		ids = append(ids, c.ID)
	}
	if err := s.Close(); err != nil { // flushes the memtable to a compressed table
		t.Fatal(err)
	}
	if tables, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(tables) == 0 {
		t.Fatal("no table written at Close")
	}
	s = openWith(t, dir, nil)
	if got := s.Count(); got != len(ids) {
		t.Fatalf("Count after reopen = %d, want %d", got, len(ids))
	}
	for _, id := range ids {
		if _, err := s.Card(context.Background(), id); err != nil {
			t.Fatalf("Card(%s): %v", id, err)
		}
	}
}
