package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// sweepLoop runs Sweep every sweepInterval until ctx ends.
func (s *Store) sweepLoop(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("store: sweep failed", "err", err)
			} else if n > 0 {
				s.log.Debug("store: swept expired records", "removed", n)
			}
		}
	}
}

// Sweep removes the cards and tombstones whose expiry plus the grace period
// has passed by the store's clock, emitting Removed (reason expired) for each
// live card, and returns how many records it removed. With WithNoEviction
// it removes nothing. The background sweeper calls it on an interval; tests
// call it directly with an injected clock. It scans record headers only
// (no card parsing); a directory of 100,000 cards takes well under a second.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	if s.cfg.noEviction {
		return 0, nil
	}
	cutoff := s.cfg.now().Add(-s.cfg.grace)
	var expired [][]byte
	for _, prefix := range []string{prefixCard, prefixTombstone} {
		keys, err := s.expiredKeys(prefix, cutoff)
		if err != nil {
			return 0, err
		}
		expired = append(expired, keys...)
	}
	n := 0
	for _, key := range expired {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		ok, err := s.removeExpired(key, cutoff)
		if err != nil {
			return n, fmt.Errorf("store: sweep %s: %w", key, err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// expiredKeys lists the keys under prefix whose record expired by cutoff.
// Corrupt values are reported and left alone.
func (s *Store) expiredKeys(prefix string, cutoff time.Time) ([][]byte, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.end()
	var keys [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			err := item.Value(func(v []byte) error {
				h, _, err := decodeRecord(v)
				if err != nil {
					s.reportCorrupt(item.KeyCopy(nil), err)
					return nil
				}
				if expiredBy(h, cutoff) {
					keys = append(keys, item.KeyCopy(nil))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return keys, err
}

func expiredBy(h header, cutoff time.Time) bool {
	return !h.ExpiresAt.IsZero() && !h.ExpiresAt.After(cutoff)
}

// removeExpired deletes key if its record is still expired by cutoff (a
// newer card may have replaced it since the scan).
func (s *Store) removeExpired(key []byte, cutoff time.Time) (bool, error) {
	if err := s.begin(); err != nil {
		return false, err
	}
	defer s.end()
	return s.removeIf(key, ReasonExpired, func(h header) bool { return expiredBy(h, cutoff) })
}

// removeIf deletes the record at key (a card or a tombstone) when cond
// accepts its header, and reports the removal of a live card to the
// metrics, the bound and the change feed with reason. The caller is inside
// the store (begin) and holds no agent lock.
func (s *Store) removeIf(key []byte, reason string, cond func(header) bool) (bool, error) {
	id := string(key[len(prefixCard):])
	unlock := s.lock(id)
	defer unlock()
	var (
		rec  *Record
		size int64
	)
	removed := false
	err := s.update(func(txn *badger.Txn) error {
		rec, removed = nil, false
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		h, raw, err := decodeRecord(v)
		if err != nil || !cond(h) {
			return nil
		}
		size = int64(len(raw))
		if string(key[:len(prefixCard)]) == prefixCard {
			// The removed record goes to subscribers; a card that no
			// longer parses is still removed, with the header only.
			rec = &Record{AgentID: id, ReceivedAt: h.ReceivedAt, Source: h.Source, Origin: h.Origin, ExpiresAt: h.ExpiresAt}
			if r, err := s.decodeCard(key, v); err == nil {
				rec = r
			}
		}
		removed = true
		return txn.Delete(key)
	})
	if err != nil || !removed {
		return false, err
	}
	s.forgetCorrupt(key)
	if rec == nil {
		s.cfg.metrics.TombstoneExpired()
		return true, nil
	}
	s.adm.remove(id)
	if rec.Card != nil {
		s.count.Add(-1)
		s.bytes.Add(-size)
	}
	s.cfg.metrics.CardRemoved(reason)
	s.cfg.metrics.Cards(s.Count())
	s.publish(Change{Kind: Removed, AgentID: id, Record: rec, Reason: reason})
	return true, nil
}

// evict removes the live cards of ids to make room under WithMaxCards,
// through the change feed like any removal. The caller is inside the
// store (begin) and holds no agent lock.
func (s *Store) evict(ids []string) error {
	for _, id := range ids {
		if _, err := s.removeIf(cardKey(id), ReasonEvicted, func(header) bool { return true }); err != nil {
			return fmt.Errorf("store: evict %s: %w", id, err)
		}
	}
	return nil
}

// evictOverflow evicts, weakest first, the unpinned cards past
// WithMaxCards (a store opened with a lower bound than it was filled
// under).
func (s *Store) evictOverflow() error {
	ids := s.adm.overflow(s.cfg.now())
	if len(ids) == 0 {
		return nil
	}
	s.log.Info("store: evicting cards past the bound", "cards", s.Count(), "evict", len(ids))
	if err := s.begin(); err != nil {
		return err
	}
	defer s.end()
	return s.evict(ids)
}
