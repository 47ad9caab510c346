// Package bridge converts ADP Agent Cards to and from the agent description
// formats of neighbouring ecosystems, and builds the well-known documents
// those ecosystems look for.
//
// # Formats
//
//	Format      To / From                 document
//	a2a         ToA2A / FromA2A           A2A AgentCard (protocol 1.0; 0.3 is read too), served at /.well-known/agent-card.json
//	mcp         ToMCP / FromMCP           MCP tools/list result {"tools": [...]}
//	oasf        ToOASF / FromOASF         OASF AgentDescriptor (ADP Appendix A.3)
//	agentcard   ToAgentCard / FromAgentCard  AgentCard draft (draft-aevum-agentcard-00), /.well-known/agentcard
//	profile     ToProfile / FromProfile   discovery-profile Agent Metadata (draft-xu, Section 4)
//	oasf-record ToOASFRecord / FromOASFRecord  OASF record (schema 0.8.0), as the AGNTCY directory stores it
//
// plus one-way builders: ANPCollection / ANPCollectionPage (the ANP
// /.well-known/agent-descriptions CollectionPage), ANPDescription (an ANP
// agent description), AgentJSON and AgentsJSON (the agent:// draft's
// /.well-known/agent.json and agents.json). Convert, Decode and Encode
// dispatch on a Format; ParseFormat reads its name.
//
// # What survives a conversion
//
// Each To function documents the mapping field by field and what the
// target cannot express. Two mechanisms keep data that a format has no
// field for:
//
//   - Export (ADP -> format): the ADP members the format cannot express go
//     into the format's own extension point under CarrierKey
//     ("urn:adp:card"): an A2A capabilities.extensions entry, the AgentCard
//     draft's metadata, a top-level member of a profile document, an OASF
//     annotation (of a descriptor or a record). Importing the document
//     restores them, so ADP -> format -> ADP keeps the whole card except its
//     signature (a converted document is new bytes; the card must be signed
//     again, and signing it with the same key reproduces the original
//     signature). The carrier omits what
//     importing the document without it derives anyway, so a document that
//     came from the format carries none. MCP has no agent-level extension
//     point: ADP -> MCP keeps the tools only.
//   - Import (format -> ADP): the members of the document that ADP has no
//     field for go into the card's extensions[<format>] ("a2a", "mcp",
//     "oasf", "agentcard", "profile", "oasf-record"), and the export to the
//     same format writes them back, so format -> ADP -> format keeps the
//     document. Kept
//     members that the export would write identically anyway are dropped,
//     so a round trip does not grow the card.
//
// A reader of the target format that ignores the carrier sees only what
// the format itself expresses; the round-trip tests of each bridge list
// that loss explicitly.
//
// # Signed A2A cards
//
// SignA2A signs an A2A AgentCard with the agent's Ed25519 key, the key that
// signs its ADP card, as A2A 1.0 Section 8.4 asks: a JWS whose detached
// payload is the JCS form of the card without signatures and without
// members at their default value, with alg EdDSA and kid the agent id.
// VerifyA2A checks such signatures with the key the kid names, or a given
// one. An import drops the signatures of an A2A card and an export writes
// none: a converted document is new bytes and must be signed again.
//
// # Hostile input
//
// Every From function bounds the document (MaxDocSize, MaxDepth), requires
// valid UTF-8 and one JSON value, checks the type of every member it reads
// and the rules of the source format, and reports every problem at once as
// an *adp.ValidationError of JSON Pointers into the document. The card it
// returns went through adp.ParseCard (so it fits in adp.MaxCardSize) but is
// unsigned and is not validated: foreign formats have no ADP id, so the id
// is often missing until the card is signed. Call Validate and Sign, or use
// adp.DecodeVerified on cards from the network.
//
// The package keeps no state; every function is safe for concurrent use.
package bridge
