package intake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// DefaultMemo is how many card encodings that passed the check the
// Checker remembers (New's default).
const DefaultMemo = 4096

// maxHints bounds the held cards remembered between Held and Keep.
const maxHints = 256

// ErrOwnCard reports a card of the node's own agent offered from outside:
// the own card changes only through the node's own update.
var ErrOwnCard = errors.New("intake: the own card is not taken from outside")

// From says how a card reached the node: its provenance.
type From struct {
	// Source is the path, recorded with the card.
	Source store.Source
	// Origin is the peer or service that supplied it (at most
	// store.MaxOriginLen octets).
	Origin string
	// Owner, when set, is the authenticated peer that delivered the card
	// (a publisher, a caller, a DHT key): the card's id must name it.
	Owner peer.ID
	// Network names the source network of the delivery (the IPv4 /24 or
	// IPv6 /48 of the peer that delivered it; "" unknown): new agents from
	// one network share a quota of the store (store.FromNetwork).
	Network string
	// GapsOnly takes the card only when the node holds none that it does
	// not supersede, leaving a held copy's freshness and provenance alone
	// (a sync from a peer fills gaps, it does not vouch for freshness).
	GapsOnly bool
	// SyncLater stores the card without waiting for the disk
	// (store.SyncLater): set where nobody is told the card was stored and
	// the network would send it again (gossip, the DHT, a sync from a
	// peer, a fetch from its owner or a directory).
	SyncLater bool
}

// Stats counts an Intake's work since New.
type Stats struct {
	// Offered counts the cards handed to Keep or Admit, by source.
	Offered map[store.Source]uint64
	// Stored counts those that became the held card.
	Stored uint64
	// Rejected counts those Admit refused at steps 1 to 5.
	Rejected uint64
	// Verifications counts the signatures the shared Checker verified.
	Verifications uint64
}

// Intake takes cards into a node's store. It is safe for concurrent use.
type Intake struct {
	store *store.Store
	self  string
	check *adp.Checker
	kept  func(*adp.Card)
	fresh func(*adp.Card, From)

	hintMu sync.Mutex
	hints  map[string]*adp.Card // held cards read by Held, for the next Keep

	countMu          sync.Mutex
	offered          map[store.Source]uint64
	stored, rejected atomic.Uint64
}

// Option configures New.
type Option func(*Intake)

// WithChecker shares k rather than a Checker of the Intake's own
// remembering DefaultMemo encodings.
func WithChecker(k *adp.Checker) Option { return func(in *Intake) { in.check = k } }

// OnKept calls f with every card Keep took into the store or found held
// already, after the store write, on the caller's goroutine.
func OnKept(f func(*adp.Card)) Option { return func(in *Intake) { in.kept = f } }

// OnStored calls f with every card Keep stored as the new held card of
// its agent, and how it came, after the store write, on the caller's
// goroutine (the node records first arrivals with it, package
// node/arrivals).
func OnStored(f func(*adp.Card, From)) Option { return func(in *Intake) { in.fresh = f } }

// New returns an Intake writing to s for the node whose own agent id is
// self (normalized): a card of self is never taken.
func New(s *store.Store, self string, opts ...Option) *Intake {
	in := &Intake{store: s, self: self, hints: make(map[string]*adp.Card), offered: make(map[store.Source]uint64)}
	for _, o := range opts {
		o(in)
	}
	if in.check == nil {
		in.check = adp.NewChecker(DefaultMemo)
	}
	return in
}

// Checker returns steps 1 to 5, for the paths that check a card before
// handing it to Keep (gossip.WithChecker, dht.WithChecker,
// adp.WithChecker).
func (in *Intake) Checker() *adp.Checker { return in.check }

// Held returns the card the node holds for agentID (store.Held), nil when
// none, and remembers it for the next Keep of a card of that agent, which
// then does not parse it again: a gossip message accepted after the
// validator's freshness check costs one parse of the held card.
func (in *Intake) Held(agentID string) *adp.Card {
	c := in.store.Held(agentID)
	if c == nil {
		return nil
	}
	in.hintMu.Lock()
	if len(in.hints) >= maxHints {
		clear(in.hints)
	}
	in.hints[c.ID] = c
	in.hintMu.Unlock()
	return c
}

// HoldsExactly reports whether the node holds agentID's card with exactly
// the bytes raw (store.Store.HoldsExactly), without parsing it.
func (in *Intake) HoldsExactly(agentID string, raw []byte) bool {
	return in.store.HoldsExactly(agentID, raw)
}

// hint returns and forgets the held card Held last returned for id.
func (in *Intake) hint(id string) *adp.Card {
	in.hintMu.Lock()
	defer in.hintMu.Unlock()
	h := in.hints[id]
	delete(in.hints, id)
	return h
}

// Admit runs every step on raw and reports the card and whether it became
// the held card. A card failing steps 1 to 5 returns the *adp.CheckError.
func (in *Intake) Admit(ctx context.Context, raw []byte, from From) (*adp.Card, bool, error) {
	c, err := in.check.Check(raw, from.Owner)
	if err != nil {
		in.rejected.Add(1)
		return nil, false, fmt.Errorf("intake: %s card: %w", from.Source, err)
	}
	stored, err := in.Keep(ctx, c, from)
	return c, stored, err
}

// Keep runs step 6 on c, which passed steps 1 to 5 (through Checker, or
// kad-dht's validator): it compares c with the held card and stores it
// when it supersedes it, or renews the held card's freshness when c is
// the very same card. It reports whether c became the held card. A card
// of the node's own agent returns ErrOwnCard.
func (in *Intake) Keep(ctx context.Context, c *adp.Card, from From) (bool, error) {
	in.countMu.Lock()
	in.offered[from.Source]++
	in.countMu.Unlock()
	if c.ID == in.self {
		return false, ErrOwnCard
	}
	h := in.hint(c.ID)
	if from.GapsOnly {
		// Read afresh: a remembered copy may be older than the held card.
		if h = in.store.Held(c.ID); h != nil && adp.Compare(c, h) <= 0 {
			return false, nil
		}
	}
	opts := []store.PutOption{store.KnownHeld(h), store.FromNetwork(from.Network)}
	if from.SyncLater {
		opts = append(opts, store.SyncLater())
	}
	stored, err := in.store.PutCard(ctx, c, from.Source, from.Origin, opts...)
	if err != nil {
		return false, fmt.Errorf("intake: store %s card: %w", from.Source, err)
	}
	if stored {
		in.stored.Add(1)
		if in.fresh != nil {
			in.fresh(c, from)
		}
	}
	if in.kept != nil && (stored || in.store.HoldsExactly(c.ID, c.Raw())) {
		in.kept(c) // not an older card refused: a replay must not undo what a newer one told
	}
	return stored, nil
}

// Stats returns the counters.
func (in *Intake) Stats() Stats {
	in.countMu.Lock()
	offered := make(map[store.Source]uint64, len(in.offered))
	for s, n := range in.offered {
		offered[s] = n
	}
	in.countMu.Unlock()
	return Stats{Offered: offered, Stored: in.stored.Load(), Rejected: in.rejected.Load(), Verifications: in.check.Verifications()}
}
