package store

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/adpnode/adpnode/adp"
)

// PutCard offers a card to the store and reports whether it became the held
// card of its agent. Inside one transaction it compares the card with the
// held one (the live card, or the tombstone of a revocation) by
// adp.Compare: only a card that supersedes it is stored, whatever its
// source. An equal or older card returns false; the very same bytes again
// extend the held card's freshness (ReceivedAt, ExpiresAt) without counting
// as stored. A revocation (adp.Card.IsRevocation) removes the live card and
// becomes a tombstone, which keeps older cards out until it expires.
//
// The caller passes verified cards (adp.DecodeVerified or its own signed
// card): the store orders them but does not check signatures. The bytes
// kept are c.Raw() when set, else c's encoding. The card is shared with
// readers afterwards: do not modify it. An acknowledged write is synced to
// disk.
func (s *Store) PutCard(ctx context.Context, c *adp.Card, src Source, origin string, opts ...PutOption) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if c == nil {
		return false, fmt.Errorf("%w: nil card", ErrInvalid)
	}
	if !src.Valid() {
		return false, fmt.Errorf("%w: source %q", ErrInvalid, src)
	}
	var po putOptions
	for _, o := range opts {
		o(&po)
	}
	if len(origin) > MaxOriginLen {
		return false, fmt.Errorf("%w: origin of %d bytes over %d", ErrInvalid, len(origin), MaxOriginLen)
	}
	id, err := s.normalize(c.ID)
	if err != nil {
		return false, err
	}
	raw := c.Raw()
	if raw == nil {
		if raw, err = c.MarshalJSON(); err != nil {
			return false, fmt.Errorf("%w: encode card: %w", ErrInvalid, err)
		}
	}
	if len(raw) > adp.MaxCardSize {
		return false, fmt.Errorf("%w: %w: %d bytes over %d", ErrTooLarge, adp.ErrTooLarge, len(raw), adp.MaxCardSize)
	}
	if err := s.begin(); err != nil {
		return false, err
	}
	defer s.end()

	now := s.cfg.now()
	ttl := min(max(c.TTL(s.cfg.defaultTTL), 0), MaxTTL)
	revocation := c.IsRevocation()
	if revocation {
		ttl = max(ttl, s.cfg.tombstoneTTL)
	}
	h := header{Source: src, Origin: origin, ReceivedAt: now, ExpiresAt: now.Add(ttl)}

	reserved := false
	if !revocation {
		var victims []string
		var refused string
		reserved, victims, refused = s.adm.admit(&admitEntry{id: id, firstSeen: now, received: now, expires: h.ExpiresAt, net: po.network, pinned: pinnedSource(src)}, now)
		if refused != "" {
			s.cfg.metrics.Refused(refused)
			return false, fmt.Errorf("%w: %s: %s", ErrFull, refused, id)
		}
		if err := s.evict(victims); err != nil {
			s.adm.remove(id)
			return false, err
		}
	}

	unlock := s.lock(id)
	var res putResult
	err = s.update(func(txn *badger.Txn) error {
		var err error
		res, err = s.putTxn(txn, id, c, raw, h, revocation, po.held)
		return err
	})
	if err != nil {
		unlock()
		if reserved {
			s.adm.remove(id)
		}
		return false, fmt.Errorf("store: put %s: %w", id, err)
	}
	if res.outcome == OutcomeStored || res.outcome == OutcomeRevoked {
		s.forgetCorrupt(cardKey(id), tombstoneKey(id)) // each written or removed
	}
	s.account(id, src, h, res, reserved)
	s.cfg.metrics.CardPut(src, res.outcome)
	s.count.Add(res.delta)
	s.bytes.Add(res.bytes)
	if res.delta != 0 {
		s.cfg.metrics.Cards(s.Count())
	}
	if res.change != nil {
		if res.change.Kind == Removed {
			s.cfg.metrics.CardRemoved(res.change.Reason)
		}
		s.publish(*res.change)
	}
	unlock()
	switch {
	case res.outcome == OutcomeIgnored:
	case po.syncLater:
		s.syncSoon()
	default:
		if err := s.syncer.wait(); err != nil {
			return false, fmt.Errorf("store: put %s: sync: %w", id, err)
		}
	}
	stored := res.outcome == OutcomeStored || res.outcome == OutcomeRevoked
	if stored {
		s.log.Debug("store: card stored", "agent", id, "source", string(src), "revocation", revocation)
	}
	return stored, nil
}

// PutOption tunes one PutCard call.
type PutOption func(*putOptions)

type putOptions struct {
	held      *adp.Card
	network   string
	syncLater bool
}

// SyncLater returns once the write is committed, without waiting for it to
// reach the disk: for cards nobody is told were stored (relayed by gossip,
// pulled from a peer or the DHT), which the network sends again. A sync
// starts at once in the background, shared with the writes around it. A
// crash of the process loses none of them (the value log is written); a
// crash of the machine may lose those of the last sync's moment.
//
// Why: a node takes such cards one at a time (the gossip subscription, a
// sync's list), so waiting for each card's sync made their intake as slow
// as the disk: on a 20-process testnet, 11 cards of one sync took 1.2 s
// to admit, one sync each.
func SyncLater() PutOption {
	return func(o *putOptions) { o.syncLater = true }
}

// syncSoon starts a background sync of the writes committed so far, unless
// one is queued already (syncer.soon). The sync runs inside the store
// (begin): Close waits for it, and once closed it is left to Badger's own
// close.
func (s *Store) syncSoon() {
	s.syncer.soon(func(sync func() error) {
		go func() {
			if s.begin() != nil {
				return
			}
			defer s.end()
			if err := sync(); err != nil {
				s.log.Warn("store: background sync", "err", err)
			}
		}()
	})
}

// FromNetwork names the source network of the delivery (for example the
// IPv4 /24 or IPv6 /48 of the peer that delivered the card): new agents
// from one network share WithNetworkShare of the bound. Empty: unknown,
// not counted against any network.
func FromNetwork(net string) PutOption {
	return func(o *putOptions) { o.network = net }
}

// account brings the bound's view of the live set in step with a put:
// a stored or refreshed card is a receipt, a revocation of a live card a
// removal, and a place reserved for a card that was not stored is given
// back unless a live card of the agent is held all the same (a
// concurrent put of the same card, which did not reserve, stored it
// first).
func (s *Store) account(id string, src Source, h header, res putResult, reserved bool) {
	switch {
	case res.outcome == OutcomeRevoked:
		s.adm.remove(id)
	case res.change != nil && (res.change.Kind == Upserted || res.change.Kind == Refreshed):
		s.adm.touch(id, src, h.ReceivedAt, h.ExpiresAt)
	case reserved && !res.live:
		s.adm.remove(id)
	}
}

// KnownHeld passes the held card as the caller last read it (Held), so
// PutCard does not parse it again when the stored bytes are still those
// of c; when they are not, c is ignored. Nil is allowed.
func KnownHeld(c *adp.Card) PutOption {
	return func(o *putOptions) { o.held = c }
}

type putResult struct {
	outcome Outcome
	delta   int64   // change in the live card count
	bytes   int64   // change in the live cards' encoded size
	change  *Change // for subscribers, nil when the live set did not change
	live    bool    // a live card of the agent is held after the put
}

func (s *Store) putTxn(txn *badger.Txn, id string, c *adp.Card, raw []byte, h header, revocation bool, hint *adp.Card) (putResult, error) {
	ck, tk := cardKey(id), tombstoneKey(id)
	// The held card is parsed only when it is neither the offered card nor
	// the caller's copy of it.
	live, liveKey, err := s.getHeld(txn, ck, c, hint)
	if err != nil {
		return putResult{}, err
	}
	tomb, tombKey, err := s.getHeld(txn, tk, c, hint)
	if err != nil {
		return putResult{}, err
	}
	cur, curKey := live, ck
	if cur == nil {
		cur, curKey = tomb, tk
	}
	if cur != nil {
		if cmp := adp.Compare(c, cur.rec.Card); cmp <= 0 {
			if cmp < 0 || !bytes.Equal(raw, cur.raw) || h.ExpiresAt.Sub(cur.rec.ExpiresAt) < refreshMin {
				return putResult{outcome: OutcomeIgnored, live: live != nil}, nil
			}
			// The same card again: extend its freshness, keep its provenance.
			rh := cur.rec.header()
			rh.ReceivedAt, rh.ExpiresAt = h.ReceivedAt, h.ExpiresAt
			if err := txn.Set(curKey, encodeRecord(rh, raw)); err != nil {
				return putResult{}, err
			}
			res := putResult{outcome: OutcomeRefreshed, live: live != nil}
			if live != nil {
				res.change = &Change{Kind: Refreshed, AgentID: id, Record: newRecord(id, cur.rec.Card, rh)}
			}
			return res, nil
		}
	}
	rec := newRecord(id, c, h)
	val := encodeRecord(h, raw)
	if revocation {
		if liveKey {
			if err := txn.Delete(ck); err != nil {
				return putResult{}, err
			}
		}
		if err := txn.Set(tk, val); err != nil {
			return putResult{}, err
		}
		res := putResult{outcome: OutcomeRevoked}
		if live != nil {
			res.delta, res.bytes = -1, -int64(len(live.raw))
			res.change = &Change{Kind: Removed, AgentID: id, Record: rec, Reason: ReasonRevoked}
		}
		return res, nil
	}
	if tombKey {
		if err := txn.Delete(tk); err != nil {
			return putResult{}, err
		}
	}
	if err := txn.Set(ck, val); err != nil {
		return putResult{}, err
	}
	res := putResult{outcome: OutcomeStored, change: &Change{Kind: Upserted, AgentID: id, Record: rec}, live: true}
	res.bytes = int64(len(raw))
	if live == nil {
		res.delta = 1
	} else {
		res.bytes -= int64(len(live.raw))
	}
	return res, nil
}
