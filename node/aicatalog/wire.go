package aicatalog

// Routes.
const (
	// WellKnownPath is where the capability manifest is served (§6.1).
	WellKnownPath = "/.well-known/ai-catalog.json"
	// SearchPath is the registry's search endpoint (§7.2).
	SearchPath = "/search"
)

// Document constants.
const (
	// SpecVersion is the manifest format version written.
	SpecVersion = "1.0"
	// MediaCatalog is the manifest's own media type.
	MediaCatalog = "application/ai-catalog+json"
	// MediaRegistry names an entry whose url is a registry's search base.
	MediaRegistry = "application/ai-registry+json"
	// MediaA2ACard is an A2A agent card.
	MediaA2ACard = "application/a2a-agent-card+json"
	// MediaADPCard is a signed ADP Agent Card (draft-song-anp-adp §3),
	// given inline in data.
	MediaADPCard = "application/adp-agent-card+json"
	// MediaANPDescription is an ANP agent description.
	MediaANPDescription = "application/anp-agent-description+json"
)

// Search bounds.
const (
	// MaxBodyBytes bounds a search request body (413 above).
	MaxBodyBytes = 16 << 10
	// MaxTextBytes bounds query.text.
	MaxTextBytes = 1024
	// MaxFilterValues bounds the values of one filter key.
	MaxFilterValues = 16
	// MaxFilterValueBytes bounds one filter value.
	MaxFilterValueBytes = 256
	// DefaultPageSize and MaxPageSize are the draft's pageSize default
	// and maximum (§7.2).
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// Federation modes (§8). A directory searches its own index only, so
// every mode is answered as "none" and no referral is returned.
const (
	FederationAuto      = "auto"
	FederationReferrals = "referrals"
	FederationNone      = "none"
)

// Filter keys the search supports (§7.1: a registry may refuse others
// with 400). Values within a key are ORed, keys ANDed.
const (
	FilterType         = "type"
	FilterTags         = "tags"
	FilterCapabilities = "capabilities"
	FilterSource       = "source"
)

// Error codes of the draft's Appendix B.
const (
	CodeInvalidArgument   = "INVALID_ARGUMENT"
	CodeNotFound          = "NOT_FOUND"
	CodeRateLimitExceeded = "RATE_LIMIT_EXCEEDED"
	CodeInternal          = "INTERNAL_ERROR"
)

// Provenance words of metadata.adpnode.provenance. Web is a card a
// directory fetched from a URL it was given (passive registration): it
// is not signed by an adpnode key unless Signed says so.
const (
	ProvenanceWeb = "web"
	// SourcePrefix begins the source URI of a card signed by an adpnode
	// key: "adpnode:" and its store source (gossip, dht, advertise...).
	SourcePrefix = "adpnode:"
)
