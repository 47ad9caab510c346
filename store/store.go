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

	count  atomic.Int64 // live, decodable cards
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
	}
	syncFn := db.Sync
	if cfg.noSync {
		syncFn = func() error { return nil }
	}
	s.syncer = newSyncer(syncFn)
	if err := s.load(); err != nil {
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
		o = o.WithMemTableSize(2 << 20).
			WithNumMemtables(2).
			WithBlockCacheSize(1 << 20).
			WithIndexCacheSize(1 << 20).
			WithValueLogFileSize(4 << 20).
			WithValueThreshold(128 << 10).
			WithBaseTableSize(1 << 20).
			WithBaseLevelSize(4 << 20).
			WithNumLevelZeroTables(2).
			WithNumLevelZeroTablesStall(4).
			WithNumCompactors(2).
			WithNumGoroutines(2)
	}
	return o
}

// load counts live cards, reports corrupt ones and loads interaction counters.
func (s *Store) load() error {
	var live int64
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixCard), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if _, err := s.decodeCard(item.KeyCopy(nil), v); err != nil {
				continue // reported
			}
			live++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: scan cards: %w", err)
	}
	s.count.Store(live)
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

// held is a decoded record found in a transaction.
type held struct {
	rec *Record
	raw []byte
}

// getHeld reads and decodes key. It returns (nil, true) for a key that is
// present but corrupt (reported), (nil, false) for an absent key.
func (s *Store) getHeld(txn *badger.Txn, key []byte) (*held, bool, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, false, err
	}
	rec, err := s.decodeCard(key, v)
	if err != nil {
		return nil, true, nil
	}
	return &held{rec: rec, raw: rec.Card.Raw()}, true, nil
}

// decodeCard decodes a stored card record; v must not be reused by the
// caller. Failures are reported and returned as *CorruptError.
func (s *Store) decodeCard(key, v []byte) (*Record, error) {
	h, raw, err := decodeRecord(v)
	if err == nil {
		var c *adp.Card
		c, err = adp.ParseCard(raw)
		if err == nil {
			id := string(key[len(prefixCard):]) // c/ and t/ have the same length
			return newRecord(id, c, h), nil
		}
		err = fmt.Errorf("card: %w", err)
	}
	return nil, s.reportCorrupt(key, err)
}

// reportCorrupt logs and counts a corrupt value once per key and keeps the
// most recent reports for Corrupt.
func (s *Store) reportCorrupt(key []byte, err error) error {
	ce := &CorruptError{Key: string(key), Err: err}
	s.corruptMu.Lock()
	_, seen := s.corruptSeen[ce.Key]
	if !seen {
		if len(s.corruptSeen) < 16*maxCorruptReports {
			s.corruptSeen[ce.Key] = struct{}{}
		}
		s.corrupt = append(s.corrupt, ce)
		if len(s.corrupt) > maxCorruptReports {
			s.corrupt = s.corrupt[len(s.corrupt)-maxCorruptReports:]
		}
	}
	s.corruptMu.Unlock()
	if !seen {
		s.log.Warn("store: skipping corrupt value", "key", ce.Key, "err", err)
		s.cfg.metrics.Corrupt()
	}
	return ce
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

// Card returns the held live card of agentID (any form accepted by
// adp.NormalizeAgentID). It returns ErrNotFound when there is none, joined
// with ErrRevoked when the agent revoked its card, and with ErrCorrupt
// when the stored value is corrupt. A stale card is returned: check
// Record.Stale.
func (s *Store) Card(ctx context.Context, agentID string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id, err := s.normalize(agentID)
	if err != nil {
		return nil, err
	}
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.end()
	var rec *Record
	err = s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(cardKey(id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			if _, err := txn.Get(tombstoneKey(id)); err == nil {
				return fmt.Errorf("%w: %s: %w", ErrNotFound, id, ErrRevoked)
			}
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		rec, err = s.decodeCard(item.KeyCopy(nil), v)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNotFound, id, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// Held returns the card that decides whether another card for agentID is
// older: the live card, or the revocation when the agent revoked, or nil.
// Its signature fits gossip.Held.
func (s *Store) Held(agentID string) *adp.Card {
	id, err := s.normalize(agentID)
	if err != nil || s.begin() != nil {
		return nil
	}
	defer s.end()
	var c *adp.Card
	_ = s.db.View(func(txn *badger.Txn) error {
		for _, k := range [][]byte{cardKey(id), tombstoneKey(id)} {
			h, _, err := s.getHeld(txn, k)
			if err != nil {
				return err
			}
			if h != nil {
				c = h.rec.Card
				return nil
			}
		}
		return nil
	})
	return c
}

// Tombstone returns the revocation held for agentID, or ErrNotFound.
func (s *Store) Tombstone(ctx context.Context, agentID string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id, err := s.normalize(agentID)
	if err != nil {
		return nil, err
	}
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.end()
	var rec *Record
	err = s.db.View(func(txn *badger.Txn) error {
		h, _, err := s.getHeld(txn, tombstoneKey(id))
		if err != nil {
			return err
		}
		if h == nil {
			return fmt.Errorf("%w: tombstone %s", ErrNotFound, id)
		}
		rec = h.rec
		return nil
	})
	return rec, err
}

// Cards calls fn for every live card (stale ones included) in agent id
// order until fn returns false. It reads in short transactions of a few
// hundred records and calls fn outside them, so fn may use the store; a
// card written meanwhile may or may not be seen. Corrupt values are
// reported and skipped.
func (s *Store) Cards(ctx context.Context, fn func(*Record) bool) error {
	next := []byte(prefixCard)
	for next != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		var batch []*Record
		var err error
		batch, next, err = s.cardBatch(next)
		if err != nil {
			return err
		}
		for _, r := range batch {
			if !fn(r) {
				return nil
			}
		}
	}
	return nil
}

// cardBatch reads up to scanBatch cards from start and returns where to
// continue (nil at the end).
func (s *Store) cardBatch(start []byte) ([]*Record, []byte, error) {
	if err := s.begin(); err != nil {
		return nil, nil, err
	}
	defer s.end()
	var batch []*Record
	var next []byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixCard), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		n := 0
		for it.Seek(start); it.Valid(); it.Next() {
			item := it.Item()
			key := item.KeyCopy(nil)
			if n == scanBatch {
				next = key
				return nil
			}
			n++
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if rec, err := s.decodeCard(key, v); err == nil {
				batch = append(batch, rec)
			}
		}
		return nil
	})
	return batch, next, err
}
