package dht

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/ipfs/go-cid"
	mh "github.com/multiformats/go-multihash"
)

// NormalizeTag lowercases a tag, trims spaces and slashes at both ends and
// collapses runs of slashes: " NLP//Translation/ " gives "nlp/translation".
// Aliases are the scoring package's business; a node that wants them
// applies them through the TagNormalizer option.
func NormalizeTag(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	var b strings.Builder
	b.Grow(len(tag))
	slash := false
	for _, r := range tag {
		if r == '/' {
			slash = true
			continue
		}
		if slash && b.Len() > 0 {
			b.WriteByte('/')
		}
		slash = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// TagPaths returns a normalized tag followed by each of its parent paths,
// longest first: "nlp/translation/legal" gives "nlp/translation/legal",
// "nlp/translation", "nlp".
func TagPaths(normalized string) []string {
	if normalized == "" {
		return nil
	}
	paths := []string{normalized}
	for {
		i := strings.LastIndexByte(normalized, '/')
		if i <= 0 {
			return paths
		}
		normalized = normalized[:i]
		paths = append(paths, normalized)
	}
}

// TagCID returns the provider key of a normalized tag: a CIDv1 with the
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

// provideKeys returns the distinct tags, with parent paths, that a card
// with these skills announces, at most MaxProvideKeys, in skill order.
func provideKeys(skills []string, normalize func(string) string) []string {
	seen := make(map[string]bool)
	var keys []string
	for _, s := range skills {
		for _, p := range TagPaths(normalize(s)) {
			if len(keys) == MaxProvideKeys {
				return keys
			}
			if seen[p] || len(p) > MaxTagLen {
				continue
			}
			seen[p] = true
			keys = append(keys, p)
		}
	}
	return keys
}
