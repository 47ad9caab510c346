// Package adp implements Agent Cards, the self-descriptions agents exchange
// under the Agent Description Protocol (ADP, draft-song-anp-adp-00), with
// the optional examples and status of the agent discovery profile
// (draft-xu-00), and the adp.discover request and response types.
//
// # Cards
//
// A Card holds every field of ADP section 3. ParseCard decodes one strictly:
// it bounds the size (MaxCardSize) and nesting depth (MaxDepth), rejects
// invalid UTF-8 and duplicate keys, and checks the JSON type of every known
// field, reporting each wrong one by JSON Pointer. Fields it does not know,
// at the top level and inside tools, endpoints, constraints, metadata and
// examples, and every extension namespace, are kept as raw JSON and written
// back by MarshalJSON, so decode then encode loses nothing. Validate checks
// the rules of ADP 3 and 7.6 (the id first against the agent URI grammar of
// package adp/agenturi) and reports every problem at once; text fields
// refuse control and invisible format characters (internal/termtext),
// descriptions and example text allowing newline and tab. Skill tags
// are flat ("python") or hierarchical ("nlp/translation"); lower-case ASCII
// is recommended, other letters are tolerated; package adp/tag defines
// the syntax and the canonical form tags match under. Every integer is kept within 2^53-1 so that JCS, which
// formats numbers as doubles, represents it exactly.
//
// # Identity
//
// One agent is one Ed25519 key. Its id is "agent://" followed by its libp2p
// peer ID as a base36 CIDv1 ("agent://k51..."); PeerIDFromAgentID also
// accepts the base58 form ("agent://12D3KooW...") and NormalizeAgentID maps
// every accepted form to the canonical one. DIDKey and PubKeyFromDIDKey
// convert to and from did:key.
//
// # Signatures and ordering
//
// Sign implements ADP 3.2: the card without "signature" is canonicalized
// with JCS (RFC 8785) and signed with Ed25519; the signature is base64url
// without padding. Verify takes the key from the id and checks the
// signature over the bytes the card was received as (minus the signature
// member), never over a re-encoding. One check sequence gates cards from
// the network: size, parse, owner (when the path authenticates one),
// Validate, Verify. A Checker runs it with a memory of the encodings that
// passed, so a node that shares one among its paths verifies a card once;
// DecodeVerified runs it without memory or owner; a failure is a
// *CheckError naming its Step. Compare orders two
// copies of one agent's card (seq, then signed over unsigned, then
// metadata.updated_at); IsRevocation recognizes ADP 6.4 revocations.
// A card that travels in canonical form, as Sign writes it, is verified
// over its own bytes without re-canonicalizing.
//
// # Discovery
//
// DiscoverRequest, DiscoverResponse and DiscoverResult are the wire types
// of adp.discover (ADP 4.3 with the discovery profile's fields).
// ParseDiscoverRequest decodes a request strictly, reports problems by
// JSON Pointer and applies the defaults. Serving and calling the ADP
// methods over AITP is package adp/service; adp itself knows nothing of
// the invocation layer.
//
// # Concurrency
//
// The package keeps no state. A Card is a plain value: concurrent reads are
// safe, mutation needs the caller's synchronization.
package adp
