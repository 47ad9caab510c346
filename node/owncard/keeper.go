package owncard

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"

	"github.com/adpnode/adpnode/adp"
)

// The card's libp2p endpoints follow the host's addresses (FollowAddrs):
// a node behind a NAT has only its private addresses when it starts and
// its relay addresses once AutoRelay holds a reservation, and a peer that
// dials the addresses of a card written at start waits for every one to
// time out (5 s for TCP) before it looks the node up in the DHT. Once the
// addresses have been still for DefaultAddrSettle, the card gets a new
// version if its endpoints differ; at most once every
// DefaultAddrMinInterval, so that addresses that flap (AutoNAT changing
// its mind, reservations renewed) do not flood the network with cards.
const (
	DefaultAddrSettle      = 2 * time.Second
	DefaultAddrMinInterval = time.Minute
)

// Config is what a Keeper is built from. Card, Key, Setup and Write are
// required.
type Config struct {
	// Card is the card the node holds when it starts (its card.json).
	Card *adp.Card
	// Key is the agent's key, which signs each version.
	Key crypto.PrivKey
	// Setup returns what the node runs now (Shape); it is read at each
	// update.
	Setup func() Setup
	// Write saves a version (card.json) before anything else sees it.
	Write func(*adp.Card) error
	// Keep, if set, stores a version after Write and before it becomes
	// the held card; its error ends the update with the card unchanged.
	Keep func(context.Context, *adp.Card) error
	// Changed, if set, is called with each new version once it is the
	// held card, before the next update begins: the node serves its
	// tools and publishes it. It must not call Update.
	Changed func(*adp.Card)
	// Now is the clock of updated_at and of AddrMinInterval; time.Now
	// when nil.
	Now func() time.Time
	// AddrSettle and AddrMinInterval time FollowAddrs; the defaults when
	// zero.
	AddrSettle, AddrMinInterval time.Duration
	// Log receives FollowAddrs' reports; discarded when nil.
	Log *slog.Logger
}

// Keeper holds a running node's own card and makes its versions one at a
// time: each is the held card edited, shaped to what the node runs, given
// the next seq (Next), written, kept, and only then the card that Card
// returns. It is safe for concurrent use; Card never waits for an
// update.
type Keeper struct {
	cfg  Config
	mu   sync.Mutex // serialises updates
	card atomic.Pointer[adp.Card]
}

// NewKeeper returns a Keeper holding cfg.Card.
func NewKeeper(cfg Config) (*Keeper, error) {
	if cfg.Card == nil || cfg.Key == nil || cfg.Setup == nil || cfg.Write == nil {
		return nil, fmt.Errorf("%w: Card, Key, Setup and Write are required", ErrBadConfig)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AddrSettle <= 0 {
		cfg.AddrSettle = DefaultAddrSettle
	}
	if cfg.AddrMinInterval <= 0 {
		cfg.AddrMinInterval = DefaultAddrMinInterval
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	k := &Keeper{cfg: cfg}
	k.card.Store(cfg.Card)
	return k, nil
}

// Card returns the held card. It must not be modified.
func (k *Keeper) Card() *adp.Card { return k.card.Load() }

// Shape makes c match what the node runs now (Shape with Config.Setup).
func (k *Keeper) Shape(c *adp.Card) { Shape(c, k.cfg.Setup()) }

// Update makes the next version: fn edits a copy of the held card, which
// is then shaped, given the next seq and signed (Next; an edit of the id
// to another agent's is ErrOtherID), written, kept and held, and handed
// to Changed. On an error the held card stays as it was.
func (k *Keeper) Update(ctx context.Context, fn func(*adp.Card)) (*adp.Card, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.next(ctx, fn)
}

// next makes the next version, as Update says; k.mu is held.
func (k *Keeper) next(ctx context.Context, fn func(*adp.Card)) (*adp.Card, error) {
	old := k.Card()
	c := old.Clone()
	fn(c)
	k.Shape(c)
	c, err := Next(old, c, k.cfg.Key, k.cfg.Now())
	if err != nil {
		return nil, err
	}
	if err := k.cfg.Write(c); err != nil {
		return nil, err
	}
	if k.cfg.Keep != nil {
		if err := k.cfg.Keep(ctx, c); err != nil {
			return nil, err
		}
	}
	k.card.Store(c)
	if k.cfg.Changed != nil {
		k.cfg.Changed(c)
	}
	return c, nil
}

// Replace makes c's content the next version (PUT /v1/card): every field
// comes from c except id, seq, signature and updated_at; created_at is
// the held card's when c has none.
func (k *Keeper) Replace(ctx context.Context, c *adp.Card) (*adp.Card, error) {
	if c == nil {
		return nil, ErrNoCard
	}
	return k.Update(ctx, func(dst *adp.Card) {
		created := ""
		if dst.Metadata != nil {
			created = dst.Metadata.CreatedAt
		}
		*dst = *c.Clone()
		if dst.Metadata != nil {
			m := *dst.Metadata
			if m.CreatedAt == "" {
				m.CreatedAt = created
			}
			dst.Metadata = &m
		} else if created != "" {
			dst.Metadata = &adp.Metadata{CreatedAt: created}
		}
	})
}

// Reshape makes a new version when the held card differs from what the
// node runs (NeedsUpdate), and reports whether it did.
func (k *Keeper) Reshape(ctx context.Context) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !NeedsUpdate(k.Card(), k.cfg.Setup()) {
		return false, nil
	}
	if _, err := k.next(ctx, func(*adp.Card) {}); err != nil {
		return false, err
	}
	return true, nil
}

// FollowAddrs keeps the card's libp2p endpoints on the host's addresses
// until ctx ends: each event on sub (the host's
// event.EvtLocalAddressesUpdated) arms a timer of AddrSettle, or of what
// is left of AddrMinInterval since its last version, and when it fires
// the card is reshaped. Subscribe before the card is first reshaped, so
// that no change falls between. It closes sub.
func (k *Keeper) FollowAddrs(ctx context.Context, sub event.Subscription) {
	defer sub.Close()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var last time.Time // this loop's last new version
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sub.Out():
			if !ok {
				return
			}
			settle.Reset(max(k.cfg.AddrSettle, last.Add(k.cfg.AddrMinInterval).Sub(k.cfg.Now())))
		case <-settle.C:
			made, err := k.Reshape(ctx)
			switch {
			case err != nil:
				last = k.cfg.Now()
				k.cfg.Log.Warn("update own card to the node's addresses", "err", err)
			case made:
				last = k.cfg.Now()
				k.cfg.Log.Info("own card updated to the node's addresses", "seq", *k.Card().Seq) // Next sets it
			}
		}
	}
}
