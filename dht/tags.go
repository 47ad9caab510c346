package dht

import (
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/ipfs/go-cid"
	mh "github.com/multiformats/go-multihash"

	"github.com/adpnode/adpnode/adp/tag"
)

// TagCID returns the provider key of a canonical tag (tag.Taxonomy's
// Normalize): a CIDv1 with the
// raw codec over the sha2-256 multihash of SkillPrefix + tag.
func TagCID(normalized string) (cid.Cid, error) {
	if normalized == "" || len(normalized) > MaxTagLen {
		return cid.Undef, fmt.Errorf("%w: %d octets", ErrBadTag, len(normalized))
	}
	sum := sha256.Sum256([]byte(SkillPrefix + normalized))
	m, err := mh.Encode(sum[:], mh.SHA2_256)
	if err != nil {
		return cid.Undef, fmt.Errorf("dht: multihash: %w", err)
	}
	return cid.NewCidV1(cid.Raw, m), nil
}

// provideKeys returns the distinct canonical tags, with parent paths, that
// a card with these skills announces, at most MaxProvideKeys, in skill
// order.
func provideKeys(tags *tag.Taxonomy, skills []string) []string {
	keys := tags.Keys(skills...)
	keys = slices.DeleteFunc(keys, func(k string) bool { return len(k) > MaxTagLen })
	return keys[:min(len(keys), MaxProvideKeys)]
}
