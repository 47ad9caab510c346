package store

import (
	"time"

	"github.com/adpnode/adpnode/adp"
)

// Source says how a card reached the store.
type Source string

// Card sources (stored with the card, shown in provenance).
const (
	SourceSelf      Source = "self"      // this node's own card
	SourceGossip    Source = "gossip"    // the GossipSub card topic
	SourceDHT       Source = "dht"       // a DHT get or an OnCard sink
	SourceAdvertise Source = "advertise" // adp.advertise from its owner
	SourceImport    Source = "import"    // a file or an operator
)

// Valid reports whether s is one of the known sources.
func (s Source) Valid() bool {
	switch s {
	case SourceSelf, SourceGossip, SourceDHT, SourceAdvertise, SourceImport:
		return true
	}
	return false
}

// Record is a held card with its provenance and freshness. Records handed
// out by the store share their Card with other readers: treat them as read
// only.
type Record struct {
	AgentID    string    // normalized agent id ("agent://k51...")
	Card       *adp.Card // the card, Raw() is the stored signed bytes
	ReceivedAt time.Time // when this card was last received
	Source     Source    // how it was first received
	Origin     string    // the peer or service that supplied it
	ExpiresAt  time.Time // ReceivedAt + card TTL: stale from then on
}

// Stale reports whether the card's freshness ran out at now. A stale card
// is still held (until the sweeper removes it after the grace period) and
// should be fetched again from the DHT or its owner.
func (r *Record) Stale(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

func (r *Record) header() header {
	return header{Source: r.Source, Origin: r.Origin, ReceivedAt: r.ReceivedAt, ExpiresAt: r.ExpiresAt}
}

func newRecord(id string, c *adp.Card, h header) *Record {
	return &Record{AgentID: id, Card: c, ReceivedAt: h.ReceivedAt, Source: h.Source, Origin: h.Origin, ExpiresAt: h.ExpiresAt}
}
