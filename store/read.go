package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/adpnode/adpnode/adp"
)

// held is a decoded record found in a transaction.
type held struct {
	rec *Record
	raw []byte
}

// getHeld reads and decodes key. It returns (nil, true) for a key that is
// present but corrupt (reported), (nil, false) for an absent key. A card
// among known whose Raw bytes are the stored ones is used as the decoded
// card rather than parsing them again.
func (s *Store) getHeld(txn *badger.Txn, key []byte, known ...*adp.Card) (*held, bool, error) {
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
	rec, err := s.decodeCard(key, v, known...)
	if err != nil {
		return nil, true, nil
	}
	return &held{rec: rec, raw: rec.Card.Raw()}, true, nil
}

// decodeCard decodes a stored card record; v must not be reused by the
// caller. A card among known with the stored bytes is used as is.
// Failures are reported and returned as *CorruptError.
func (s *Store) decodeCard(key, v []byte, known ...*adp.Card) (*Record, error) {
	h, raw, err := decodeRecord(v)
	if err == nil {
		c := sameCard(raw, known)
		if c == nil {
			c, err = adp.ParseCard(raw)
		}
		if err == nil {
			id := string(key[len(prefixCard):]) // c/ and t/ have the same length
			return newRecord(id, c, h), nil
		}
		err = fmt.Errorf("card: %w", err)
	}
	return nil, s.reportCorrupt(key, err)
}

// sameCard returns the card among known whose Raw bytes are raw, or nil.
func sameCard(raw []byte, known []*adp.Card) *adp.Card {
	for _, c := range known {
		if c != nil && c.Raw() != nil && bytes.Equal(c.Raw(), raw) {
			return c
		}
	}
	return nil
}

// knownCorrupt returns a copy of the keys of the corrupt values found so
// far (at most 16 times maxCorruptReports), nil when there is none.
func (s *Store) knownCorrupt() map[string]struct{} {
	s.corruptMu.Lock()
	defer s.corruptMu.Unlock()
	if len(s.corruptSeen) == 0 {
		return nil
	}
	return maps.Clone(s.corruptSeen)
}

// forgetCorrupt forgets keys as corrupt once they were written or
// removed: CardsAt counts them again, and a new corruption of one is
// reported again. The reports Corrupt returns stay.
func (s *Store) forgetCorrupt(keys ...[]byte) {
	s.corruptMu.Lock()
	defer s.corruptMu.Unlock()
	for _, k := range keys {
		delete(s.corruptSeen, string(k))
	}
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

// Card returns the held live card of agentID (any form accepted by
// adp.NormalizeAgentID). It returns ErrNotFound when there is none, joined
// with ErrRevoked when the agent revoked its card, and with ErrCorrupt
// when the stored value is corrupt. A stale card is returned: check
// Record.Stale.
func (s *Store) Card(ctx context.Context, agentID string) (*Record, error) {
	id, err := s.enter(ctx, agentID)
	if err != nil {
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
	var c *adp.Card
	s.viewHeld(agentID, func(item *badger.Item) error {
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if rec, err := s.decodeCard(item.KeyCopy(nil), v); err == nil {
			c = rec.Card
		}
		return nil
	})
	return c
}

// Holds reports whether the store holds a card for agentID, the live card
// or a revocation, without reading either: Held is not nil then, unless
// the record is corrupt.
func (s *Store) Holds(agentID string) bool {
	return s.viewHeld(agentID, func(*badger.Item) error { return nil })
}

// HoldsExactly reports whether the card that decides for agentID (as in
// Held) is stored with exactly the bytes raw. It reads the record without
// parsing the card: the cheap answer for a card offered again, which a
// sync from a peer mostly is.
func (s *Store) HoldsExactly(agentID string, raw []byte) bool {
	same := false
	s.viewHeld(agentID, func(item *badger.Item) error {
		return item.Value(func(v []byte) error {
			_, held, err := decodeRecord(v)
			same = err == nil && bytes.Equal(held, raw)
			return nil
		})
	})
	return same
}

// viewHeld calls fn, in a read transaction, with the record that decides
// for agentID: the live card's, else the revocation's (the two exclude
// each other). It reports whether there was one; an invalid id, a closed
// store or a read error is none.
func (s *Store) viewHeld(agentID string, fn func(*badger.Item) error) bool {
	id, err := s.normalize(agentID)
	if err != nil || s.begin() != nil {
		return false
	}
	defer s.end()
	found := false
	_ = s.db.View(func(txn *badger.Txn) error {
		for _, k := range [][]byte{cardKey(id), tombstoneKey(id)} {
			item, err := txn.Get(k)
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			found = true
			return fn(item)
		}
		return nil
	})
	return found
}

// Tombstone returns the revocation held for agentID, or ErrNotFound.
func (s *Store) Tombstone(ctx context.Context, agentID string) (*Record, error) {
	id, err := s.enter(ctx, agentID)
	if err != nil {
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
	return s.CardsAt(ctx, 0, "", fn)
}

// CardsAt is Cards from the offset-th card in agent id order, with the
// card of except (a normalized agent id; "" for none) neither counted nor
// given. The cards before offset are passed over by their keys alone, in
// short transactions, so a page deep in a large store costs reading its
// keys, not decoding every card before it. A corrupt value is neither
// given nor counted, once found (by Open's scan, or by the read of an
// earlier page) and until a card replaces it, so consecutive pages
// neither repeat nor miss a card across one; beyond 1,024 corrupt values,
// the later ones count as cards, and a page after one may repeat a card
// at its boundary.
func (s *Store) CardsAt(ctx context.Context, offset int, except string, fn func(*Record) bool) error {
	return s.cardsAt(ctx, offset, except, skipBatch, fn)
}

// cardsAt is CardsAt passing over at most batch keys per transaction.
func (s *Store) cardsAt(ctx context.Context, offset int, except string, batch int, fn func(*Record) bool) error {
	next := []byte(prefixCard)
	for offset > 0 && next != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		next, offset, err = s.skipKeys(next, offset, except, batch)
		if err != nil {
			return err
		}
	}
	for next != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		var recs []*Record
		var err error
		recs, next, err = s.cardBatch(next)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.AgentID != except && !fn(r) {
				return nil
			}
		}
	}
	return nil
}

// skipKeys passes over up to batch card keys from start, except's and
// those of corrupt values found so far not counted (a page never gives
// them), until n are passed. It returns the key to continue from (nil
// at the end) and how many are still to pass.
func (s *Store) skipKeys(start []byte, n int, except string, batch int) ([]byte, int, error) {
	if err := s.begin(); err != nil {
		return nil, 0, err
	}
	defer s.end()
	var next []byte
	corrupt := s.knownCorrupt()
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixCard)})
		defer it.Close()
		seen := 0
		for it.Seek(start); it.Valid(); it.Next() {
			key := it.Item().Key()
			if n == 0 || seen == batch {
				next = slices.Clone(key)
				return nil
			}
			seen++
			if _, bad := corrupt[string(key)]; !bad && string(key[len(prefixCard):]) != except {
				n--
			}
		}
		return nil
	})
	return next, n, err
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
