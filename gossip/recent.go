package gossip

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

const (
	// maxRecent bounds the recently accepted cards remembered by the
	// validator.
	maxRecent = 4096
	// recentTTL is how long an accepted card shadows later copies. It only
	// needs to outlast the sink's store write; past it, Held alone decides,
	// so a card the node dropped (expired) can come back.
	recentTTL = 30 * time.Second
)

// recent remembers the newest card the validator accepted per agent. It
// closes the window between accepting a card and the OnCard sink storing
// it, in which a second copy (a re-broadcast, or the same card arriving
// on two paths with different message ids) would pass the Held check
// again and be delivered twice. Entries last recentTTL; when full it
// forgets an arbitrary half: it is a short-term bridge, Held is the record.
type recent struct {
	now   func() time.Time
	mu    sync.Mutex
	cards map[peer.ID]recentCard
}

type recentCard struct {
	c  *adp.Card
	at time.Time
}

func newRecent(now func() time.Time) *recent {
	return &recent{now: now, cards: make(map[peer.ID]recentCard)}
}

// admit reports whether c is newer than both the held card and the last
// one admitted for owner, and if so remembers it; check and record are
// one atomic step.
func (r *recent) admit(owner peer.ID, c *adp.Card, held func(string) *adp.Card) bool {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if last, ok := r.cards[owner]; ok && now.Sub(last.at) < recentTTL && adp.Compare(c, last.c) <= 0 {
		return false
	}
	if held != nil {
		if h := held(adp.AgentID(owner)); h != nil && adp.Compare(c, h) <= 0 {
			return false
		}
	}
	if len(r.cards) >= maxRecent {
		n := 0
		for p := range r.cards {
			delete(r.cards, p)
			if n++; n >= maxRecent/2 {
				break
			}
		}
	}
	r.cards[owner] = recentCard{c: c, at: now}
	return true
}
