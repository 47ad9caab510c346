package scoring

// Tags is what scoring needs of a tag vocabulary: the declared spelling
// tidied (Clean, kept as evidence), the canonical form tags match under
// (Normalize), a canonical tag with its parents (Paths, most specific
// first) and the parent match of ADP §3.6.1 (Covers: query tag q is
// matched by agent tag t). The one definition of a tag, adp/tag's
// *Taxonomy, implements it; node passes the same taxonomy to the index and
// to the DHT so that ranking and provider keys agree. Implementations must
// be safe for concurrent use and deterministic.
type Tags interface {
	Clean(raw string) string
	Normalize(raw string) string
	Paths(canonical string) []string
	Covers(q, t string) bool
}

// maxTagLen bounds a tag in octets under exactTags, so hostile input cannot
// grow the interned tag table with huge strings.
const maxTagLen = 128

// exactTags is the vocabulary of an index built without WithTags: a tag
// matches only the very same string (no case folding, no aliases, no
// parents). Scoring imports no tag definition of its own; the real one
// comes from the caller.
type exactTags struct{}

func (exactTags) Clean(raw string) string {
	if len(raw) > maxTagLen {
		raw = raw[:maxTagLen]
	}
	return raw
}

func (e exactTags) Normalize(raw string) string { return e.Clean(raw) }

func (exactTags) Paths(canonical string) []string {
	if canonical == "" {
		return nil
	}
	return []string{canonical}
}

func (exactTags) Covers(q, t string) bool { return q == t }
