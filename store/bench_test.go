package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// The benchmarks report µs/op and, as "x_badger", the ratio of the store
// operation to the bare Badger operation it is built on (same options,
// same value size, measured in the same run): the cost of ordering,
// encoding and parsing on top of the database.

// rawBadger opens a bare Badger database with the store's small-memory
// options, synced or not.
func rawBadger(b *testing.B, sync bool) *badger.DB {
	b.Helper()
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithLogger(nil).WithMetricsEnabled(false).
		WithSyncWrites(sync).WithMemTableSize(2 << 20).WithNumMemtables(2).WithBlockCacheSize(1 << 20).
		WithIndexCacheSize(1 << 20).WithValueLogFileSize(4 << 20).WithValueThreshold(128 << 10).
		WithBaseTableSize(1 << 20).WithBaseLevelSize(4 << 20).WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(4).WithNumCompactors(2).WithNumGoroutines(2))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// perOp runs fn n times and returns the mean duration.
func perOp(n int, fn func(i int)) time.Duration {
	start := time.Now()
	for i := range n {
		fn(i)
	}
	return time.Since(start) / time.Duration(n)
}

func report(b *testing.B, base time.Duration) {
	b.StopTimer() // closing the store is not part of the op
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per.Nanoseconds())/1e3, "µs/op")
	if base > 0 {
		b.ReportMetric(float64(per)/float64(base), "x_badger")
	}
}

// BenchmarkPutCard stores a newer card of one of 64 agents per op (the
// stored path: read, compare, write, sync). Cards are signed beforehand.
func BenchmarkPutCard(b *testing.B) {
	const agents = 64
	const pool = 2048
	keys := make([]string, agents)
	cards := make([]*adp.Card, pool)
	for i := range agents {
		sk := newKey(b)
		for v := 0; v < pool/agents; v++ {
			cards[v*agents+i] = makeCard(b, sk, cardSpec{seq: uint64(v + 1)})
		}
		keys[i] = cards[i].ID
	}
	for _, mode := range []struct {
		name string
		sync bool
		mem  bool
	}{{"disk", true, false}, {"disk-nosync", false, false}, {"memory", false, true}} {
		b.Run(mode.name, func(b *testing.B) {
			db := rawBadger(b, mode.sync)
			val := make([]byte, len(cards[0].Raw())+40)
			base := perOp(500, func(i int) {
				if err := db.Update(func(txn *badger.Txn) error {
					return txn.Set([]byte(fmt.Sprintf("c/%s", keys[i%agents])), val)
				}); err != nil {
					b.Fatal(err)
				}
			})
			ctx := context.Background()
			var s *store.Store
			reopen := func() {
				if s != nil {
					s.Close()
				}
				var err error
				if mode.mem {
					s, err = store.Open("", store.WithInMemory(), store.WithSweepInterval(0))
				} else if mode.sync {
					s, err = store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
				} else {
					s, err = store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0), store.WithoutSync())
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			reopen()
			b.Cleanup(func() { s.Close() })
			b.ResetTimer()
			for i := range b.N {
				if i > 0 && i%pool == 0 { // the pool is used up: start over
					b.StopTimer()
					reopen()
					b.StartTimer()
				}
				ok, err := s.PutCard(ctx, cards[i%pool], store.SourceGossip, "bench")
				if err != nil || !ok {
					b.Fatalf("put %d: %v %v", i, ok, err)
				}
			}
			report(b, base)
		})
	}
	b.Run("ignored", func(b *testing.B) {
		// An older card: read and compare only, no write.
		s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		ctx := context.Background()
		for i := range agents {
			put(b, s, cards[pool-agents+i], store.SourceGossip)
		}
		b.ResetTimer()
		for i := range b.N {
			if ok, err := s.PutCard(ctx, cards[i%agents], store.SourceGossip, ""); ok || err != nil {
				b.Fatalf("old card: %v %v", ok, err)
			}
		}
		report(b, 0)
	})
}

// BenchmarkCard reads one of 64 held cards per op (decode and parse),
// against a bare Badger get of a value of the same size.
func BenchmarkCard(b *testing.B) {
	const agents = 64
	s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	db := rawBadger(b, false)
	ids := make([]string, agents)
	for i := range agents {
		c := makeCard(b, newKey(b), cardSpec{seq: 1})
		put(b, s, c, store.SourceGossip)
		ids[i] = c.ID
		val := make([]byte, len(c.Raw())+40)
		if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("c/"+c.ID), val) }); err != nil {
			b.Fatal(err)
		}
	}
	base := perOp(5000, func(i int) {
		if err := db.View(func(txn *badger.Txn) error {
			item, err := txn.Get([]byte("c/" + ids[i%agents]))
			if err != nil {
				return err
			}
			_, err = item.ValueCopy(nil)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	})
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Card(ctx, ids[i%agents]); err != nil {
			b.Fatal(err)
		}
	}
	report(b, base)
}

// BenchmarkRecordCall records one call per op, from one goroutine and from
// 16 at once (the disk syncs that follow the records in the background are
// shared); "x_sequential" is the parallel per-op time over the sequential
// one. BenchmarkStats reads the counters (from memory).
func BenchmarkRecordCall(b *testing.B) {
	var seq time.Duration
	b.Run("sequential", func(b *testing.B) {
		s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		id := adp.AgentID(newPeer(b))
		ctx := context.Background()
		b.ResetTimer()
		for i := range b.N {
			if err := s.RecordCall(ctx, id, i%7 != 0, time.Millisecond); err != nil {
				b.Fatal(err)
			}
		}
		report(b, 0)
		seq = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("parallel16", func(b *testing.B) {
		s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		ids := make([]string, 8)
		for i := range ids {
			ids[i] = adp.AgentID(newPeer(b))
		}
		ctx := context.Background()
		b.SetParallelism(8) // 16 goroutines on 2 cores
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				i++
				if err := s.RecordCall(ctx, ids[i%len(ids)], true, time.Millisecond); err != nil {
					b.Error(err)
					return
				}
			}
		})
		report(b, 0)
		if seq > 0 {
			b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/float64(seq), "x_sequential")
		}
	})
}

func BenchmarkStats(b *testing.B) {
	s := openMem(b)
	id := adp.AgentID(newPeer(b))
	ctx := context.Background()
	if err := s.RecordCall(ctx, id, true, time.Millisecond); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.Stats(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	report(b, 0)
}

// BenchmarkSweep scans 2,000 held cards none of which has expired: the cost
// a normal node pays every sweep interval, reported per held card.
func BenchmarkSweep(b *testing.B) {
	const n = 2000
	s := openMem(b)
	for range n {
		put(b, s, makeCard(b, newKey(b), cardSpec{seq: 1}), store.SourceGossip)
	}
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if removed, err := s.Sweep(ctx); err != nil || removed != 0 {
			b.Fatalf("Sweep: %d %v", removed, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/card")
}

// BenchmarkCardsAt reads the last page (100 cards) of 20,000, as GET
// /v1/cards?offset=19900&limit=100 does; "x_full" is its time over
// reading every card and keeping the last 100 (the listing's way before
// CardsAt), measured in the same run.
func BenchmarkCardsAt(b *testing.B) {
	const total, page = 20_000, 100
	s, err := store.Open(b.TempDir(), store.WithSmallMemory(), store.WithSweepInterval(0), store.WithMaxCards(total))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	for range total {
		put(b, s, makeCard(b, newKey(b), cardSpec{seq: 1}), store.SourceGossip)
	}
	ctx := context.Background()
	last := func(offset int) int {
		n := 0
		err := s.CardsAt(ctx, offset, "", func(*store.Record) bool { n++; return n < page })
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	full := perOp(5, func(int) {
		var recs []*store.Record
		if err := s.Cards(ctx, func(r *store.Record) bool { recs = append(recs, r); return true }); err != nil || len(recs) != total {
			b.Fatalf("Cards: %d cards, %v", len(recs), err)
		}
	})
	b.ResetTimer()
	for b.Loop() {
		if n := last(total - page); n != page {
			b.Fatalf("CardsAt: %d cards, want %d", n, page)
		}
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per.Nanoseconds())/1e3, "µs/op")
	b.ReportMetric(float64(per)/float64(full), "x_full")
}
