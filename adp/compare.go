package adp

import (
	"math"
	"time"
)

// Compare orders two copies of the card of one agent (ADP 3.2, 6.3, 7.3).
// It returns a positive number when a supersedes b, a negative one when b
// supersedes a, and 0 when neither does. It is pure: it looks at seq,
// signature presence and metadata.updated_at only, and does not verify
// signatures (cards reach it through DecodeVerified) nor compare ids.
//
// The rules, in order:
//
//  1. A non-nil card supersedes nil.
//  2. Seq decides when the two differ; an absent seq ranks below every
//     present one. Per ADP 3.2 the unsigned-card rule only forbids an
//     unsigned card to supersede a signed one with the same or higher seq,
//     so an unsigned card with a strictly higher seq does supersede.
//  3. Equal seq (or both absent): a signed card supersedes an unsigned one.
//  4. Then the later metadata.updated_at (RFC 3339) wins; a missing or
//     unparsable timestamp ranks below any valid one.
//  5. Otherwise it is a full tie and Compare returns 0: the holder keeps the
//     copy it has. (Two different signed cards with one seq mean the owner
//     equivocated; stores keep the first, and the DHT selector breaks the
//     tie on bytes so that every node converges.)
func Compare(a, b *Card) int {
	switch {
	case a == nil && b == nil:
		return 0
	case b == nil:
		return 1
	case a == nil:
		return -1
	}
	if c := compareSeq(a.Seq, b.Seq); c != 0 {
		return c
	}
	if as, bs := a.Signature != "", b.Signature != ""; as != bs {
		if as {
			return 1
		}
		return -1
	}
	ta, oka := a.updatedAt()
	tb, okb := b.updatedAt()
	switch {
	case oka && okb:
		return ta.Compare(tb)
	case oka:
		return 1
	case okb:
		return -1
	}
	return 0
}

// compareSeq orders two seq values over the whole uint64 range, an absent
// seq below every present one.
func compareSeq(a, b *uint64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	case *a > *b:
		return 1
	case *a < *b:
		return -1
	}
	return 0
}

func (c *Card) updatedAt() (time.Time, bool) {
	if c.Metadata == nil || c.Metadata.UpdatedAt == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, c.Metadata.UpdatedAt)
	return t, err == nil
}

// IsRevocation reports whether the card is a revocation (ADP 6.4): tools
// and endpoints both present and empty.
func (c *Card) IsRevocation() bool {
	return c.Tools != nil && len(c.Tools) == 0 && c.Endpoints != nil && len(c.Endpoints) == 0
}

// maxTTLSeconds keeps TTL's conversion to a Duration from overflowing.
const maxTTLSeconds = math.MaxInt64 / int64(time.Second)

// TTL returns how long the card stays fresh after it is received:
// metadata.ttl seconds when present and not negative (0 means it is stale at
// once), def otherwise.
func (c *Card) TTL(def time.Duration) time.Duration {
	if c.Metadata == nil || c.Metadata.TTL == nil || *c.Metadata.TTL < 0 {
		return def
	}
	s := *c.Metadata.TTL
	if s > maxTTLSeconds {
		s = maxTTLSeconds
	}
	return time.Duration(s) * time.Second
}
