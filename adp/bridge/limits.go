package bridge

// Limits, names and well-known locations. Format names and CarrierKey are
// written into documents and command lines: append only.
const (
	// MaxDocSize bounds a foreign document (A2A, MCP, OASF, AgentCard,
	// profile) in octets. The ADP card built from it must still fit in
	// adp.MaxCardSize.
	MaxDocSize = 1 << 20
	// MaxDepth bounds the nesting of arrays and objects in a foreign
	// document; the top-level value is depth 1.
	MaxDepth = 64
)

// Format names a document format that Convert reads or writes.
type Format string

// Formats. Append only.
const (
	FormatADP       Format = "adp"       // ADP Agent Card (draft-song-anp-adp, Section 3)
	FormatA2A       Format = "a2a"       // A2A AgentCard (protocol 1.0; 0.3 is read too)
	FormatMCP       Format = "mcp"       // MCP tools/list result: {"tools": [...]}
	FormatOASF      Format = "oasf"      // OASF AgentDescriptor (ADP Appendix A.3)
	FormatAgentCard Format = "agentcard" // AgentCard draft (draft-aevum-agentcard-00)
	FormatProfile   Format = "profile"   // discovery profile Agent Metadata (draft-xu, Section 4)
	// FormatOASFRecord is an OASF record (schema 0.8.0) as the AGNTCY
	// directory stores it.
	FormatOASFRecord Format = "oasf-record"
)

// Formats lists every Format, in the order the command line documents them.
var Formats = []Format{FormatADP, FormatA2A, FormatMCP, FormatOASF, FormatAgentCard, FormatProfile, FormatOASFRecord}

// CarrierKey names the object in which an exported document keeps the ADP
// fields its format cannot express, so that importing it again restores
// them: the uri of an A2A capabilities.extensions entry, a key of the
// AgentCard draft's metadata, a top-level member of a discovery-profile
// document (a URI, as the profile asks of private extensions), and an OASF
// metadata.annotations key (holding the object as a JSON string).
const CarrierKey = "urn:adp:card"

// Extension namespaces of an ADP card in which an import keeps the source
// fields ADP has no place for; an export to the same format restores them.
const (
	NamespaceA2A       = "a2a"
	NamespaceMCP       = "mcp"
	NamespaceOASF      = "oasf"
	NamespaceAgentCard = "agentcard"
	NamespaceProfile   = "profile"
	// NamespaceOASFRecord keeps what an OASF record says beyond ADP.
	NamespaceOASFRecord = "oasf-record"
)

// A2A constants (A2A protocol 1.0).
const (
	// A2AProtocolVersion is the protocolVersion of the interfaces ToA2A
	// writes.
	A2AProtocolVersion = "1.0"
	// A2ALegacyProtocolVersion is the version FromA2A gives the interfaces
	// of an A2A 0.3 card (url, additionalInterfaces) that names none.
	A2ALegacyProtocolVersion = "0.3"
	// A2ADefaultTransport is the binding of an A2A 0.3 url without
	// preferredTransport.
	A2ADefaultTransport = "JSONRPC"
	// A2AWellKnownPath is where an A2A agent serves its AgentCard (ToA2A).
	A2AWellKnownPath = "/.well-known/agent-card.json"
)

// OASF descriptor kind and the apiVersion written when the source did not
// name one (ADP Appendix A.3 fixes neither).
const (
	OASFKind       = "AgentDescriptor"
	OASFAPIVersion = "oasf.agntcy.org/v1alpha1"
)

// OASFRecordSchemaVersion is the schema_version of the OASF records
// ToOASFRecord writes.
const OASFRecordSchemaVersion = "0.8.0"

// AgentCard draft constants.
const (
	// AgentCardMediaType is the media type of an AgentCard document.
	AgentCardMediaType = "application/agentcard+json"
	// AgentCardWellKnownPath is where an agent serves its AgentCard.
	AgentCardWellKnownPath = "/.well-known/agentcard"
	// LandauerFloorJoules is the smallest non-zero pricing.base_cost_joules
	// the draft's validation rule 7 admits: the value it states for k_B T
	// ln 2 at 300 K. (The exact product, 1.380649e-23 * 300 * ln 2, is
	// about 2.871e-21 J; the draft's rounded factors give 2.854e-21, and its
	// own example uses that value, so the rule is applied as written.)
	LandauerFloorJoules = 2.854e-21
	// AgentCardMaxNameLen bounds name in Unicode code points.
	AgentCardMaxNameLen = 128
)

// agent:// draft well-known documents (Section 5).
const (
	AgentJSONWellKnownPath  = "/.well-known/agent.json"
	AgentsJSONWellKnownPath = "/.well-known/agents.json"
)

// ANP (W3C AI Agent Protocol CG draft, Agent Discovery).
const (
	// ANPWellKnownPath is where a domain serves its CollectionPage.
	ANPWellKnownPath = "/.well-known/agent-descriptions"
	// ANPMediaType is the media type of ANP documents (JSON-LD).
	ANPMediaType = "application/ld+json"
)
