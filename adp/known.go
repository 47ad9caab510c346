package adp

import (
	"crypto/sha256"
	"encoding/base64"
)

// The known list of adp.discover (docs/protocol.md 7.3): the cards a
// caller holds, each named by a digest of its bytes, which the answer
// leaves out. A card sync sends it so that a peer answers with what the
// caller lacks instead of every card again.
const (
	// KnownDigestSize is the octets of SHA-256 a known digest keeps: 96
	// bits, so that no card can be made to pass for another one held.
	KnownDigestSize = 12
	// MaxKnownCards bounds the known list: 2,048 digests of 16 characters
	// take about 39 KB of the 64 KB request.
	MaxKnownCards = 2048
)

// CardDigest returns the known-list digest of a card's bytes (Card.Raw):
// base64url without padding of the first KnownDigestSize octets of the
// SHA-256 of their JCS (RFC 8785) form, 16 characters. The canonical form
// makes every JSON encoding of one signed card (white space, escapes,
// member order: a reply re-encoded by a JSON library) one digest; bytes
// that are not JSON are hashed as they are.
func CardDigest(raw []byte) string {
	canon, err := canonicalize(raw)
	if err != nil {
		canon = raw
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:KnownDigestSize])
}

// validKnownDigest reports whether s is a digest as CardDigest writes it.
func validKnownDigest(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(KnownDigestSize) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && base64.RawURLEncoding.EncodeToString(b) == s
}
