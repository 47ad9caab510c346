package gossip

import (
	"bytes"
	"encoding/binary"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

const (
	// maxRecent bounds the publishers the validator remembers.
	maxRecent = 4096
	// recentTTL is how long an accepted card shadows later copies. It only
	// needs to outlast the sink's store write; past it, Held alone decides,
	// so a card the node dropped (expired) can come back.
	recentTTL = 30 * time.Second
)

// verdict is the freshness step's decision on a verified card.
type verdict int

const (
	// verdictNewer: the card supersedes what the node holds; accept,
	// relay and deliver it.
	verdictNewer verdict = iota
	// verdictRefresh: the very card the node holds, re-broadcast by its
	// owner in a message newer than any seen from it; accept and relay it
	// so the re-broadcast reaches nodes that missed the card, but do not
	// deliver it (it is no news here).
	verdictRefresh
	// verdictReplayed: the held card again, in a message no newer than
	// one already seen from the owner: ignore.
	verdictReplayed
	// verdictOlder: a card that does not supersede the held one and is
	// not the same card: ignore.
	verdictOlder
)

// recent remembers, per publisher, the newest card the validator accepted
// and the highest message sequence number relayed.
//
// The card closes the window between accepting a card and the OnCard sink
// storing it, in which a second copy (the same card arriving on two paths
// with different message ids) would pass the Held check again and be
// delivered twice; it shadows later copies for recentTTL. The sequence
// number lets an owner's re-broadcast of an unchanged card travel the
// whole network while a replay of an old message carrying it stops at the
// first hop, once pubsub's seen-message cache has forgotten it. When full
// it forgets an arbitrary half: it is a short-term bridge, Held is the
// record.
type recent struct {
	now   func() time.Time
	mu    sync.Mutex
	cards map[peer.ID]recentCard
}

type recentCard struct {
	c     *adp.Card // nil when only seqno is known
	at    time.Time
	seqno uint64 // highest message seqno relayed from the publisher
}

func newRecent(now func() time.Time) *recent {
	return &recent{now: now, cards: make(map[peer.ID]recentCard)}
}

// msgSeqno decodes a pubsub message sequence number (8 octets, big
// endian); anything else counts as 0, the oldest.
func msgSeqno(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// admit judges card c of owner, carried by a message with sequence number
// seqno, against the held card and the last one admitted, and records
// what it accepts; judging against the last one admitted and recording
// are one atomic step, so of two copies validated at once one is news.
func (r *recent) admit(owner peer.ID, c *adp.Card, seqno uint64, held func(string) *adp.Card, holds func(string, []byte) bool) verdict {
	now := r.now()
	// The held card is looked up before taking the lock: Held may read a
	// database, and the lock is shared by every publisher. When the node
	// holds c's very bytes, c stands for the held card (no decoding).
	var h *adp.Card
	switch id := adp.AgentID(owner); {
	case holds != nil && holds(id, c.Raw()):
		h = c
	case held != nil:
		h = held(id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.cards[owner]
	base := e.c
	if base != nil && now.Sub(e.at) >= recentTTL {
		base = nil
	}
	if h != nil && (base == nil || adp.Compare(h, base) > 0) {
		base = h
	}
	v := verdictNewer
	if base != nil {
		switch cmp := adp.Compare(c, base); {
		case cmp > 0:
		case cmp == 0 && bytes.Equal(c.Raw(), base.Raw()):
			v = verdictRefresh
			if seqno <= e.seqno {
				v = verdictReplayed
			}
		default:
			v = verdictOlder
		}
	}
	switch v {
	case verdictNewer:
		e.c, e.at = c, now
	case verdictRefresh:
	default:
		return v
	}
	e.seqno = max(e.seqno, seqno)
	if _, ok := r.cards[owner]; !ok && len(r.cards) >= maxRecent {
		n := 0
		for p := range r.cards {
			delete(r.cards, p)
			if n++; n >= maxRecent/2 {
				break
			}
		}
	}
	r.cards[owner] = e
	return v
}
