package adp

import "github.com/adpnode/adpnode/adp/tag"

// Wire limits and enumerations. Changing a limit changes which documents
// peers accept; enumerations are append only.
const (
	// MaxCardSize bounds an encoded Agent Card in octets (ADP 7.6: the AIP
	// maximum message size).
	MaxCardSize = 65535

	// MaxDepth bounds the nesting of arrays and objects in a card or a
	// discover request; the top-level object is depth 1. Real cards, JSON
	// Schemas included, stay far below it; the bound keeps decoders and
	// canonicalizers off deep recursion driven by a peer.
	MaxDepth = 32

	// MaxToolNameLen bounds a tool name in octets (ADP 3.4: the AITP
	// method length field is one octet).
	MaxToolNameLen = 255

	// MaxTagLen bounds one skill tag in octets (tag.MaxLen).
	MaxTagLen = tag.MaxLen

	// MaxSeq is the largest seq a card may carry: 2^53-1, the largest
	// integer JCS (RFC 8785, which formats numbers as IEEE 754 doubles)
	// represents exactly. A larger seq would let two different seq values
	// share one canonical form, and so one signature.
	MaxSeq = 1<<53 - 1

	// MaxDiscoverRequestSize bounds an adp.discover request body in octets.
	MaxDiscoverRequestSize = 65535
	// MaxDiscoverTags bounds each tag list of a discover request.
	MaxDiscoverTags = 64
	// MaxQueryLen bounds the query of a discover request in octets: the
	// request's whole size but for room for its other members, so that
	// an agent can send a long task description as it is (the ranker
	// scores it on its most informative terms).
	MaxQueryLen = MaxDiscoverRequestSize - 1024
	// DefaultDiscoverLimit and MaxDiscoverLimit bound the number of results.
	DefaultDiscoverLimit = 10
	MaxDiscoverLimit     = 100
	// DefaultMinScore is the discover request's default min_score (ADP 4.3).
	DefaultMinScore = 0.1
)

// Card status values (discovery profile 4.8). Append only.
const (
	StatusActive     = "active"
	StatusInactive   = "inactive"
	StatusSuspended  = "suspended"
	StatusDeprecated = "deprecated"
	StatusTesting    = "testing"
)

// Discover response detail levels (discovery profile 5.1). Append only.
const (
	DetailMinimal = "minimal"
	DetailSummary = "summary"
	DetailFull    = "full"
)

// Discover request constraint names understood by this package (discovery
// profile 5.1); any other constraint is reported as unsupported by the
// service. Append only.
const (
	ConstraintMaxResultsAge = "max_results_age_seconds"
	ConstraintAllowStale    = "allow_stale"
	// ConstraintRelevanceFloor sets the relevance floor: a candidate
	// whose relevance is below this fraction of the best relevance is
	// dropped (0 turns the floor off). The answer reports the floor used
	// in applied_filters.
	ConstraintRelevanceFloor = "relevance_floor"
	// ConstraintStrict, when true, makes every constraint a hard filter:
	// one the service cannot apply fails the request with
	// unsupported_filter instead of being listed in unsupported_filters.
	ConstraintStrict = "strict"
)
