package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// On-disk format. Every key starts with a one-letter prefix and a slash;
// every value starts with a version byte. Versions are append only: a new
// layout gets a new version byte and the decoder keeps reading the old ones.
//
//	c/<agent id>                 live card record      (recordV1)
//	t/<agent id>                 revocation tombstone  (recordV1, the revocation card)
//	i/<agent id>/s               interaction counters  (statsV1)
//	i/<agent id>/r/<rater>       one rating per rater  (ratingV1)
//
// <agent id> is always the normalized form "agent://k51..." (adp.NormalizeAgentID),
// which contains no further slash, so "i/<agent id>/" is an unambiguous prefix.
const (
	prefixCard      = "c/"
	prefixTombstone = "t/"
	prefixInteract  = "i/"
	suffixStats     = "/s"
	infixRating     = "/r/"
)

// Value version bytes (append only).
const (
	recordV1 byte = 1
	statsV1  byte = 1
	ratingV1 byte = 1
)

// Bounds on what the store accepts from callers; everything from a peer
// passes through them.
const (
	// MaxOriginLen bounds Record.Origin (a peer id or a service URL; 2048
	// is the URL length browsers and servers commonly accept).
	MaxOriginLen = 2048
	// MaxRaterLen bounds the rater of a rating.
	MaxRaterLen = 512
	// maxSourceLen bounds the encoded source name.
	maxSourceLen = 32
)

var errShort = errors.New("truncated value")

func cardKey(id string) []byte      { return []byte(prefixCard + id) }
func tombstoneKey(id string) []byte { return []byte(prefixTombstone + id) }
func statsKey(id string) []byte     { return []byte(prefixInteract + id + suffixStats) }
func ratingKey(id, rater string) []byte {
	return []byte(prefixInteract + id + infixRating + rater)
}

// header is the fixed part of a card record, decoded without parsing the card.
type header struct {
	Source     Source
	Origin     string
	ReceivedAt time.Time
	ExpiresAt  time.Time // zero: never
}

// encodeRecord lays out a card record:
//
//	version u8 (1) | uvarint len | source | uvarint len | origin |
//	varint received (unix ns) | varint expires (unix ns, 0 = never) | card bytes
func encodeRecord(h header, raw []byte) []byte {
	b := make([]byte, 0, 1+2+len(h.Source)+2+len(h.Origin)+20+len(raw))
	b = append(b, recordV1)
	b = binary.AppendUvarint(b, uint64(len(h.Source)))
	b = append(b, h.Source...)
	b = binary.AppendUvarint(b, uint64(len(h.Origin)))
	b = append(b, h.Origin...)
	b = binary.AppendVarint(b, unixNano(h.ReceivedAt))
	b = binary.AppendVarint(b, unixNano(h.ExpiresAt))
	return append(b, raw...)
}

// decodeRecord is the inverse of encodeRecord. The returned card bytes alias v.
func decodeRecord(v []byte) (header, []byte, error) {
	var h header
	if len(v) == 0 {
		return h, nil, errShort
	}
	if v[0] != recordV1 {
		return h, nil, fmt.Errorf("unknown record version %d", v[0])
	}
	r := reader{b: v[1:]}
	h.Source = Source(r.str(maxSourceLen))
	h.Origin = r.str(MaxOriginLen)
	h.ReceivedAt = fromUnixNano(r.varint())
	h.ExpiresAt = fromUnixNano(r.varint())
	if r.err != nil {
		return header{}, nil, r.err
	}
	if len(r.b) == 0 {
		return header{}, nil, errors.New("empty card")
	}
	return h, r.b, nil
}

// statsRecord is the stored form of Stats.
type statsRecord struct {
	Calls, Successes, Failures uint64
	LatencyNanos               uint64 // sum over all calls
	Completed                  uint64
	RatingCount, RatingSum     uint64
	LastSeen, LastCall         time.Time
}

// encodeStats: version u8 (1) | 7 uvarints | 2 varints (unix ns, 0 = never).
func encodeStats(s statsRecord) []byte {
	b := make([]byte, 0, 64)
	b = append(b, statsV1)
	for _, u := range []uint64{s.Calls, s.Successes, s.Failures, s.LatencyNanos, s.Completed, s.RatingCount, s.RatingSum} {
		b = binary.AppendUvarint(b, u)
	}
	b = binary.AppendVarint(b, unixNano(s.LastSeen))
	b = binary.AppendVarint(b, unixNano(s.LastCall))
	return b
}

func decodeStats(v []byte) (statsRecord, error) {
	var s statsRecord
	if len(v) == 0 {
		return s, errShort
	}
	if v[0] != statsV1 {
		return s, fmt.Errorf("unknown stats version %d", v[0])
	}
	r := reader{b: v[1:]}
	for _, p := range []*uint64{&s.Calls, &s.Successes, &s.Failures, &s.LatencyNanos, &s.Completed, &s.RatingCount, &s.RatingSum} {
		*p = r.uvarint()
	}
	s.LastSeen = fromUnixNano(r.varint())
	s.LastCall = fromUnixNano(r.varint())
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err == nil && (s.Successes+s.Failures != s.Calls || s.RatingSum > 5*s.RatingCount || s.RatingSum < s.RatingCount) {
		r.err = errors.New("inconsistent counters")
	}
	return s, r.err
}

// encodeRating: version u8 (1) | stars u8 | varint at (unix ns).
func encodeRating(stars int, at time.Time) []byte {
	b := []byte{ratingV1, byte(stars)}
	return binary.AppendVarint(b, unixNano(at))
}

func decodeRating(v []byte) (int, time.Time, error) {
	if len(v) < 2 {
		return 0, time.Time{}, errShort
	}
	if v[0] != ratingV1 {
		return 0, time.Time{}, fmt.Errorf("unknown rating version %d", v[0])
	}
	stars := int(v[1])
	if stars < MinStars || stars > MaxStars {
		return 0, time.Time{}, fmt.Errorf("stars %d outside %d..%d", stars, MinStars, MaxStars)
	}
	r := reader{b: v[2:]}
	at := fromUnixNano(r.varint())
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	return stars, at, r.err
}

// reader decodes varints and length-prefixed strings, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	u, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return u
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	i, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return i
}

func (r *reader) str(max int) string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(max) {
		r.err = fmt.Errorf("string length %d over %d", n, max)
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errShort
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// unixNano maps the zero time to 0 so "never" round-trips.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
