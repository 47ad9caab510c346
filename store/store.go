package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/adpnode/adpnode/adp"
)

const (
	// lockStripes serializes writers of the same agent so that Badger
	// conflicts (and their retries) stay rare and the change feed sees each
	// agent's changes in commit order.
	lockStripes = 64
	// maxConflictRetries bounds the retries of a transaction that lost a
	// conflict.
	maxConflictRetries = 16
	// refreshMin is the least extension of an expiry worth a write when the
	// same card arrives again.
	refreshMin = time.Second
	// maxCorruptReports bounds the list kept for Corrupt.
	maxCorruptReports = 64
	// scanBatch is how many records Cards reads per read transaction.
	scanBatch = 256
	// skipBatch is how many keys CardsAt passes over per read transaction.
	skipBatch = 8192
	// maxIDCache bounds the normalized agent id cache.
	maxIDCache = 1 << 14
)

// Store holds the newest card per agent, revocation tombstones and local
// interaction records in a Badger database. It is safe for concurrent use.
// Close stops the sweeper, ends every subscription and closes the database.
type Store struct {
	cfg  config
	db   *badger.DB
	log  *slog.Logger
	seed maphash.Seed

	locks [lockStripes]sync.Mutex

	mu     sync.RWMutex // held shared by every operation, exclusively by Close
	closed bool

	adm    *admission   // the live set as the bound on it sees it
	count  atomic.Int64 // live, decodable cards
	bytes  atomic.Int64 // their encoded size (the signed JSON)
	syncer *syncer      // group commit of acknowledged writes

	subsMu sync.Mutex
	subs   map[*subscriber]struct{}

	statsMu sync.RWMutex
	stats   map[string]statsRecord

	idsMu sync.RWMutex
	ids   map[string]string // agent id as given -> normalized

	corruptMu   sync.Mutex
	corrupt     []error
	corruptSeen map[string]struct{}

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the store in dir. It scans the cards and
// interaction records once to count them and to report corrupt values; cards
// are re-parsed but not re-verified (they were verified before PutCard and
// the directory is trusted). It starts the expiry sweeper unless
// WithSweepInterval(0).
func Open(dir string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.inMemory && dir != "" {
		return nil, fmt.Errorf("%w: in-memory store with a directory", ErrInvalid)
	}
	if !cfg.inMemory && dir == "" {
		return nil, fmt.Errorf("%w: empty directory", ErrInvalid)
	}
	db, err := badger.Open(badgerOptions(dir, cfg))
	if err != nil {
		if !cfg.inMemory && dirLocked(dir) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s := &Store{
		cfg:         cfg,
		db:          db,
		log:         cfg.logger,
		seed:        maphash.MakeSeed(),
		subs:        make(map[*subscriber]struct{}),
		stats:       make(map[string]statsRecord),
		ids:         make(map[string]string),
		corruptSeen: make(map[string]struct{}),
		adm:         newAdmission(cfg.maxCards, cfg.networkShare),
	}
	syncFn := db.Sync
	if cfg.noSync {
		syncFn = func() error { return nil }
	}
	s.syncer = newSyncer(syncFn)
	if err := s.load(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if err := s.evictOverflow(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	if cfg.sweepInterval > 0 {
		s.wg.Add(1)
		go s.sweepLoop(ctx)
	}
	s.cfg.metrics.Cards(s.Count())
	return s, nil
}

func badgerOptions(dir string, cfg config) badger.Options {
	o := badger.DefaultOptions(dir).
		WithLogger(badgerLogger{cfg.logger}).
		WithMetricsEnabled(false).
		WithSyncWrites(false). // the syncer syncs acknowledged writes, grouped
		WithInMemory(cfg.inMemory)
	if cfg.smallMemory {
		return smallMemory(o)
	}
	return cardStore(o)
}

// cardStore sizes Badger for the cards of a node (node.DefaultMaxCards,
// 20,000) or of a directory peer (200,000), not for a server's database.
// Badger's defaults allocate the skiplist arena of a 64 MiB memtable (83
// MiB with its batch room) on the Go heap at open, keep up to five
// memtables and cache up to 256 MiB of blocks: an idle node held 94 MB of
// live heap for 39 MB of RSS, and the collector, which lets the heap grow
// by its live size before it runs, let as much garbage pile up under load.
//
//   - An 8 MiB memtable (thousands of cards; an arena of about 10 MiB) and
//     one being flushed: cards are written one per transaction at the pace
//     of gossip, so a flush has a memtable's time to finish.
//   - Snappy-compressed tables, as by default (a directory's cards take
//     about half the disk), with the 16 MiB block cache compression needs.
//
// BenchmarkOpenHeap: an open store holds 11 MiB of heap, against 85.6 MiB
// with Badger's defaults.
func cardStore(o badger.Options) badger.Options {
	return o.WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(16 << 20)
}

// smallMemory sizes Badger for a card store, not a server's database: a
// node holds thousands of cards of a few KiB (at most adp.MaxCardSize
// each), written one record per transaction at the pace of gossip.
//
//   - One 1 MiB memtable and one being flushed. Badger allocates each
//     memtable's skiplist arena (the memtable plus 15% for a batch) on the
//     Go heap at once; the collector counts it as live although it is
//     mostly untouched, and lets that much garbage pile up again before it
//     collects. 1 MiB holds hundreds of cards, and the largest
//     transaction (a card record and the delete of its tombstone, or a
//     tombstone and the delete of its card) fits its 157 KiB batch bound
//     (TestSmallMemoryLargestCard).
//   - Values up to 128 KiB stay in the LSM tree: every card does, so the
//     value log holds nothing to collect.
//   - No compression, hence no block cache, and no index cache (indexes
//     stay in memory, a few KiB per table): tables are read through their
//     memory maps; what compression would save on disk is not worth the
//     heap and the goroutines of the two caches.
//   - Small tables and levels and two compactors, the fewest Badger
//     allows.
//
// BenchmarkOpenHeap: an open small-memory store holds 1.4 MiB of heap,
// against 3.4 MiB with a 2 MiB memtable and 1 MiB caches (and 11 MiB with
// cardStore, 86 MiB with Badger's defaults).
func smallMemory(o badger.Options) badger.Options {
	return o.WithMemTableSize(1 << 20).
		WithNumMemtables(2).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithValueLogFileSize(4 << 20).
		WithValueThreshold(128 << 10).
		WithBaseTableSize(1 << 20).
		WithBaseLevelSize(4 << 20).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(4).
		WithNumCompactors(2).
		WithNumGoroutines(2)
}

// load counts live cards, reports corrupt ones and loads interaction counters.
func (s *Store) load() error {
	var live, size int64
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixCard), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			rec, err := s.decodeCard(item.KeyCopy(nil), v)
			if err != nil {
				continue // reported
			}
			// Tenure starts again at Open: the record keeps the last receipt only.
			s.adm.touch(rec.AgentID, rec.Source, rec.ReceivedAt, rec.ExpiresAt)
			size += int64(len(rec.Card.Raw()))
			live++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: scan cards: %w", err)
	}
	s.count.Store(live)
	s.bytes.Store(size)
	err = s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixInteract)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			if !bytes.HasSuffix(k, []byte(suffixStats)) || bytes.Contains(k, []byte(infixRating)) {
				continue
			}
			id := string(k[len(prefixInteract) : len(k)-len(suffixStats)])
			err := item.Value(func(v []byte) error {
				st, err := decodeStats(v)
				if err != nil {
					s.reportCorrupt(item.KeyCopy(nil), err)
					return nil
				}
				s.stats[id] = st
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: scan interactions: %w", err)
	}
	return nil
}

// Close stops the sweeper, ends every subscription (closing its channel)
// and closes the database, waiting for operations in flight. It is
// idempotent; later operations return ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.subsMu.Lock()
		subs := s.subs
		s.subs = nil
		s.subsMu.Unlock()
		for sub := range subs {
			sub.stop()
		}
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

// begin admits one operation unless the store is closed; end releases it.
func (s *Store) begin() error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (s *Store) end() { s.mu.RUnlock() }

// enter starts a call about one agent: it checks ctx, normalizes agentID
// and enters the store (begin). On success the caller must call end.
func (s *Store) enter(ctx context.Context, agentID string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	id, err := s.normalize(agentID)
	if err != nil {
		return "", err
	}
	if err := s.begin(); err != nil {
		return "", err
	}
	return id, nil
}

// lock serializes writers of one agent.
func (s *Store) lock(id string) func() {
	m := &s.locks[maphash.String(s.seed, id)%lockStripes]
	m.Lock()
	return m.Unlock
}

// update runs fn in a read-write transaction, retrying lost conflicts.
func (s *Store) update(fn func(txn *badger.Txn) error) error {
	for attempt := 0; ; attempt++ {
		err := s.db.Update(fn)
		if !errors.Is(err, badger.ErrConflict) || attempt == maxConflictRetries {
			return err
		}
	}
}

// normalize maps any accepted agent id form to the key form, remembering
// recent answers: parsing an id (base36 CID, key extraction) costs about as
// much as a Badger read, and scoring asks for the same ids over and over.
func (s *Store) normalize(agentID string) (string, error) {
	s.idsMu.RLock()
	id, ok := s.ids[agentID]
	s.idsMu.RUnlock()
	if ok {
		return id, nil
	}
	id, err := adp.NormalizeAgentID(agentID)
	if err != nil {
		return "", fmt.Errorf("%w: agent id: %w", ErrInvalid, err)
	}
	s.idsMu.Lock()
	if len(s.ids) >= maxIDCache {
		clear(s.ids) // crude but bounded; refills from use
	}
	s.ids[agentID] = id
	s.idsMu.Unlock()
	return id, nil
}

// Corrupt returns the most recent corrupt values found (each a
// *CorruptError), oldest first, at most 64, each key once.
func (s *Store) Corrupt() []error {
	s.corruptMu.Lock()
	defer s.corruptMu.Unlock()
	return append([]error(nil), s.corrupt...)
}

// Count returns the number of live cards (tombstones and corrupt values
// excluded; stale cards included until the sweeper removes them).
func (s *Store) Count() int { return int(s.count.Load()) }

// CardBytes returns the encoded size of the live cards (their signed
// JSON), the memory and disk a peer's cards make the node hold before
// indexing and storage overhead.
func (s *Store) CardBytes() int64 { return s.bytes.Load() }
