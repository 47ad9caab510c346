// Package webreg is a directory's passive registration: it is given the
// URL of an A2A agent card or of an ANP agent description, fetches it,
// converts it with adp/bridge, verifies what can be verified and indexes
// it for the directory's AI Catalog search (node/aicatalog), with the
// provenance "web".
//
// Registration runs these steps, cheapest first; a refusal at any step
// stores nothing:
//
//  1. the requester's rate limit (per source and per source network);
//  2. the URL: http or https, a host, no user information, an address
//     the node's outbound policy allows (internal/netguard, the same
//     policy as the A2A client's, checked again on every connection after
//     name resolution); redirects are refused;
//  3. the fetch: bounded in time (FetchTimeout), in size (MaxDocBytes)
//     and in number at once (MaxConcurrentFetches); HTTP 200 only;
//  4. the format: an ANP description has "@context" or "@type", any
//     other JSON object is read as an A2A card;
//  5. an A2A card's JWS signatures (A2A 1.0 §8.4.3), checked with the key
//     each names in its kid (bridge.VerifyA2A): a card whose signatures
//     all fail is refused; an unsigned card is kept, marked unsigned;
//  6. the conversion (bridge.FromA2A, bridge.FromANP);
//  7. a did:wba DID in the document is resolved by the node's resolver
//     (WithDIDCheck) and, when its document lists the JWS key, recorded
//     as verified; an unverified DID is only not recorded;
//  8. the cap: at most MaxCards registrations (a known URL replaces its
//     entry); registrations expire after TTL.
//
// Web cards are not ADP cards signed by an adpnode key: they never enter
// the node's card store, so neither gossip, the DHT nor adp.discover ever
// carries them. They are indexed in a discovery index of their own, which
// the AI Catalog search reads beside the node's ([Registry] implements
// aicatalog.Source), each result marked with its provenance, the URL it
// came from and whether a signature vouches for it.
//
// A Registry is safe for concurrent use; Close releases its idle
// connections and is idempotent.
package webreg
