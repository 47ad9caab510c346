package cardsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/store"
)

// Fetch asks peer p for the signed cards it holds.
type Fetch func(ctx context.Context, p peer.ID) ([]Entry, error)

// Entry is one card of a peer's list: its bytes, and the agent id the peer
// lists it under ("" when unknown). The id only lets a card the node holds
// with the very same bytes be skipped unparsed (those bytes name their
// agent themselves); any other card is parsed and verified.
type Entry struct {
	ID   string
	Card json.RawMessage
}

// Intake is the part of a node's intake (node/intake) a Syncer uses.
type Intake interface {
	Held(agentID string) *adp.Card
	HoldsExactly(agentID string, raw []byte) bool
	Admit(ctx context.Context, raw []byte, from intake.From) (*adp.Card, bool, error)
}

// Stats counts a Syncer's work since New.
type Stats struct {
	Syncs       uint64 // syncs run
	Fetched     uint64 // syncs whose fetch succeeded
	Failed      uint64 // syncs whose fetch failed
	Deferred    uint64 // connections within the interval, synced at its end
	Dropped     uint64 // connections not synced: too many peers waiting
	Newer       uint64 // cards newer than the held one, handed to the intake
	Stored      uint64 // of those, cards that became the held card
	Refused     uint64 // of those, cards the intake refused (check failed)
	KeptHeld    uint64 // of those, cards not stored otherwise (the held card stayed, or the store failed)
	Skipped     uint64 // cards not newer (or unparsable), not verified
	Behind      uint64 // syncs that found the peer without the own card
	Republished uint64 // republications of the own card, counted once published
	Rounds      uint64 // anti-entropy rounds that picked a peer
}

// Syncer pulls newer cards from the peers a node connects to. It is safe
// for concurrent use.
type Syncer struct {
	cfg   config
	fetch Fetch
	in    Intake

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}

	mu          sync.Mutex
	last        map[peer.ID]time.Time // start of the last sync, per peer
	due         map[peer.ID]time.Time // peers waiting, with the time they are due
	running     map[peer.ID]bool
	failures    map[peer.ID]int // consecutive failed syncs, per peer
	republishAt time.Time       // zero: none asked for
	republished time.Time       // the last republication
	nextRound   time.Time       // the next anti-entropy round, when enabled

	syncs, fetched, failed, deferred, dropped                       atomic.Uint64
	newer, stored, refused, keptHeld, skipped, behind, reps, rounds atomic.Uint64

	collector *collector // registered on cfg.reg; nil without Registerer

	closeOnce sync.Once
}

// New starts a Syncer that fetches with fetch and admits through in.
func New(fetch Fetch, in Intake, opts ...Option) (*Syncer, error) {
	if fetch == nil || in == nil {
		return nil, fmt.Errorf("%w: a fetch and an intake are required", ErrBadOption)
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Syncer{
		cfg: cfg, fetch: fetch, in: in,
		ctx: ctx, cancel: cancel,
		wake:     make(chan struct{}, 1),
		last:     make(map[peer.ID]time.Time),
		due:      make(map[peer.ID]time.Time),
		running:  make(map[peer.ID]bool),
		failures: make(map[peer.ID]int),
	}
	if cfg.peers != nil {
		s.nextRound = cfg.now().Add(s.jittered())
	}
	if cfg.reg != nil {
		s.collector = newCollector(s)
		if err := cfg.reg.Register(s.collector); err != nil {
			cancel()
			return nil, fmt.Errorf("cardsync: register metrics: %w", err)
		}
	}
	s.wg.Go(s.loop)
	return s, nil
}

// Connected asks for a sync with p, which the node just connected to: at
// once, or at the end of the interval since the last sync with p. A peer
// already waiting or being synced is not asked for twice.
func (s *Syncer) Connected(p peer.ID) {
	s.mu.Lock()
	if s.running[p] {
		s.mu.Unlock()
		return
	}
	if _, waiting := s.due[p]; !waiting {
		if len(s.due) >= s.cfg.maxPending {
			s.mu.Unlock()
			s.dropped.Add(1)
			return
		}
		at := s.cfg.now()
		if last, ok := s.last[p]; ok && at.Sub(last) < s.cfg.interval {
			at = last.Add(s.cfg.interval)
			s.deferred.Add(1)
		}
		s.due[p] = at
	}
	s.mu.Unlock()
	s.poke()
}

// Behind asks for a republication of the own card: a peer was found
// without it. It waits RepublishDelay, coalesces with the requests made
// meanwhile and runs at most once per RepublishInterval. Without the
// Republish option it does nothing.
func (s *Syncer) Behind() {
	if s.cfg.publish == nil {
		return
	}
	s.mu.Lock()
	if s.republishAt.IsZero() {
		at := s.cfg.now().Add(s.cfg.republishDelay)
		if next := s.republished.Add(s.cfg.republishInterval); !s.republished.IsZero() && next.After(at) {
			at = next
		}
		s.republishAt = at
	}
	s.mu.Unlock()
	s.poke()
}

// Published tells the syncer that the own card was just published by
// another path (a new version, the join's announcement): a
// republication asked for before is dropped, since that publication
// carries the card, and the next one waits RepublishInterval from now.
func (s *Syncer) Published() {
	s.mu.Lock()
	s.republishAt, s.republished = time.Time{}, s.cfg.now()
	s.mu.Unlock()
}

// Stats returns the counters.
func (s *Syncer) Stats() Stats {
	return Stats{
		Syncs: s.syncs.Load(), Fetched: s.fetched.Load(), Failed: s.failed.Load(), Deferred: s.deferred.Load(), Dropped: s.dropped.Load(),
		Newer: s.newer.Load(), Stored: s.stored.Load(), Refused: s.refused.Load(), KeptHeld: s.keptHeld.Load(), Skipped: s.skipped.Load(),
		Behind: s.behind.Load(), Republished: s.reps.Load(), Rounds: s.rounds.Load(),
	}
}

// Close cancels the syncs in flight and waits for every goroutine. It is
// idempotent and returns nil.
func (s *Syncer) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		if s.collector != nil {
			s.cfg.reg.Unregister(s.collector)
		}
	})
	return nil
}

func (s *Syncer) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop starts the syncs and the republication when they are due, and
// sleeps until the next one is.
func (s *Syncer) loop() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		var peers []peer.ID
		if s.roundDue() {
			peers = s.cfg.peers() // a host call: outside s.mu
		}
		next := s.startDue(peers)
		t.Stop() // since Go 1.23 no stale tick survives Stop: no drain
		if next > 0 {
			t.Reset(next)
		}
		select {
		case <-s.ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

// startDue starts every due sync a free slot allows, earliest first, and
// the republication when due. It returns the wait until the next due
// work, 0 when none waits (or only for a slot: a finishing sync wakes
// the loop).
func (s *Syncer) startDue(peers []peer.ID) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.now()
	var next time.Duration
	soonest := func(d time.Duration) {
		if next == 0 || d < next {
			next = d
		}
	}
	if !s.nextRound.IsZero() {
		if d := s.nextRound.Sub(now); d > 0 {
			soonest(d)
		} else {
			s.nextRound = now.Add(s.jittered())
			soonest(s.nextRound.Sub(now))
			s.pickRound(now, peers)
		}
	}
	if !s.republishAt.IsZero() {
		if d := s.republishAt.Sub(now); d > 0 {
			soonest(d)
		} else {
			s.republishAt, s.republished = time.Time{}, now
			s.wg.Go(s.republish)
		}
	}
	for len(s.running) < s.cfg.maxInFlight {
		var (
			p     peer.ID
			at    time.Time
			found bool
		)
		for q, t := range s.due {
			if !found || t.Before(at) {
				p, at, found = q, t, true
			}
		}
		if !found {
			break
		}
		if d := at.Sub(now); d > 0 {
			soonest(d)
			break
		}
		delete(s.due, p)
		s.running[p] = true
		s.remember(p, now)
		s.wg.Go(func() { s.run(p) })
	}
	return next
}

// roundDue reports whether an anti-entropy round is due.
func (s *Syncer) roundDue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.nextRound.IsZero() && !s.nextRound.After(s.cfg.now())
}

// jittered is the wait until the next round: the round plus or minus a
// quarter, so that the nodes of a network do not sync in step.
func (s *Syncer) jittered() time.Duration {
	q := s.cfg.round / 4
	return s.cfg.round - q + rand.N(2*q+1)
}

// pickRound queues, for an anti-entropy round, the connected peer synced
// least recently (one never synced first). s.mu is held.
func (s *Syncer) pickRound(now time.Time, peers []peer.ID) {
	var (
		pick   peer.ID
		oldest time.Time
		found  bool
	)
	for _, p := range peers {
		if _, waiting := s.due[p]; waiting || s.running[p] {
			continue
		}
		last := s.last[p] // zero when never synced
		if !found || last.Before(oldest) {
			pick, oldest, found = p, last, true
		}
	}
	if found && len(s.due) < s.cfg.maxPending {
		s.due[pick] = later(now, oldest.Add(s.cfg.interval))
		s.rounds.Add(1)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// remember notes the start of a sync with p, forgetting old entries when
// the memory is full. s.mu is held.
func (s *Syncer) remember(p peer.ID, now time.Time) {
	if len(s.last) >= maxRemembered {
		for q, t := range s.last {
			if now.Sub(t) >= s.cfg.interval {
				delete(s.last, q)
			}
		}
		if len(s.last) >= maxRemembered {
			clear(s.last)
		}
	}
	s.last[p] = now
}

// run syncs with p and frees its slot. A failed sync (on a loaded peer
// the fetch can outlast the timeout) is tried again at the end of the
// interval, at most maxRetries times in a row.
func (s *Syncer) run(p peer.ID) {
	if s.cfg.connected != nil && !s.cfg.connected(p) {
		s.mu.Lock()
		delete(s.running, p)
		s.mu.Unlock()
		s.poke()
		return
	}
	err := s.Sync(s.ctx, p)
	if err != nil {
		s.cfg.log.Debug("card sync", "peer", p, "err", err)
	}
	s.mu.Lock()
	delete(s.running, p)
	switch {
	case err == nil:
		delete(s.failures, p)
	case s.ctx.Err() == nil && s.failures[p] < maxRetries && len(s.due) < s.cfg.maxPending:
		s.failures[p]++
		if _, waiting := s.due[p]; !waiting {
			s.due[p] = s.last[p].Add(s.cfg.interval)
		}
	default:
		delete(s.failures, p)
	}
	if len(s.failures) > maxRemembered {
		clear(s.failures)
	}
	s.mu.Unlock()
	s.poke()
}

// Sync runs the phases of one sync with p at once, whatever the interval
// (the caller sets the pace: the node's start-up sync from its bootstrap
// peers uses it), and returns the fetch's error. The fetch is bounded by
// the Timeout; the admission, local work over at most MaxCards cards, by
// ctx only (on a loaded node the store's writes are what takes time). Cards the intake refuses
// are counted, not returned.
func (s *Syncer) Sync(ctx context.Context, p peer.ID) error {
	s.syncs.Add(1)
	fctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	list, err := s.fetch(fctx, p)
	cancel()
	if err != nil {
		s.failed.Add(1)
		return err
	}
	s.fetched.Add(1)
	list = list[:min(len(list), s.cfg.maxCards)]
	newer, ownSeen := s.selectNewer(list)
	from := intake.From{Source: store.SourceImport, Origin: adp.AgentID(p), GapsOnly: true, SyncLater: true}
	for _, raw := range newer {
		s.admit(ctx, raw, from)
	}
	if !ownSeen && len(list) < s.cfg.maxCards {
		s.behind.Add(1)
		s.Behind()
	}
	return nil
}

// selectNewer is phase 2: the entries that parse and supersede the held
// card, unverified. ownSeen reports whether the list holds the own card
// at its current version (or newer), when the Republish option is set.
func (s *Syncer) selectNewer(list []Entry) (newer []json.RawMessage, ownSeen bool) {
	var own *adp.Card
	if s.cfg.own != nil {
		own = s.cfg.own()
	}
	for _, e := range list {
		if own != nil && e.ID == own.ID && bytes.Equal(e.Card, own.Raw()) {
			ownSeen = true // the own card's very bytes
			continue
		}
		if e.ID != "" && s.in.HoldsExactly(e.ID, e.Card) {
			s.skipped.Add(1) // the held card itself: not parsed again
			continue
		}
		c, err := adp.ParseCard(e.Card)
		if err != nil {
			s.skipped.Add(1)
			continue
		}
		if own != nil && c.ID == own.ID {
			ownSeen = ownSeen || adp.Compare(c, own) >= 0
			continue
		}
		if h := s.in.Held(c.ID); h != nil && adp.Compare(c, h) <= 0 {
			s.skipped.Add(1)
			continue
		}
		newer = append(newer, e.Card)
	}
	return newer, ownSeen || own == nil
}

// admit is phase 3: raw through the intake, which verifies it.
func (s *Syncer) admit(ctx context.Context, raw []byte, from intake.From) {
	s.newer.Add(1)
	c, stored, err := s.in.Admit(ctx, raw, from)
	switch {
	case err != nil && c == nil:
		s.refused.Add(1)
		s.cfg.log.Debug("card sync: card refused", "peer", from.Origin, "err", err)
	case err != nil:
		s.keptHeld.Add(1)
		s.cfg.log.Debug("card sync: keep card", "agent", c.ID, "err", err)
	case stored:
		s.stored.Add(1)
	default:
		s.keptHeld.Add(1)
	}
}

// republish is phase 4's action: the own card once more.
func (s *Syncer) republish() {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.timeout)
	defer cancel()
	err := s.cfg.publish(ctx, s.cfg.own())
	if err == nil {
		// Counted once published, so that Stats never runs ahead of it.
		s.reps.Add(1)
	} else if ctx.Err() == nil {
		s.cfg.log.Debug("card sync: republish own card", "err", err)
	}
}
