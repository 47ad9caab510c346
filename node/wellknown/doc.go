// Package wellknown builds the node's /.well-known documents and serves
// them with HTTP caching headers, for both of the node's HTTP servers: the
// local API (package node/httpapi) and the public read-only server
// (package node/publichttp).
//
// The documents, each made from the node's own signed card by package
// adp/bridge:
//
//	/.well-known/adp-card.json        the signed ADP card itself
//	/.well-known/agent-card.json      A2A 1.0 AgentCard, signed (JWS, EdDSA, kid = agent id)
//	/.well-known/agentcard            AgentCard draft (agent_id: the node's persisted ULID)
//	/.well-known/agent.json           agent:// draft descriptor
//	/.well-known/agent-descriptions   ANP CollectionPage (?page=N; every held card on a directory peer)
//	/agents/{id}/ad.json              ANP agent description
//
// [Docs] renders a document for a base URL (the URL the serving server is
// reached at, which the ANP and AgentCard documents link to); [Write]
// answers it with a strong ETag (a hash of the bytes), Cache-Control
// (public, max-age [MaxAge], or [AgentCardMaxAge] for the AgentCard
// document as its draft recommends), Last-Modified when the card says
// when it was updated, and 304 Not Modified to a matching If-None-Match
// (or, without one, If-Modified-Since).
//
// Docs is safe for concurrent use and owns no goroutines. It keeps the
// last signed A2A card, so a server does not sign the same card on every
// request.
package wellknown
