// Package route decides how the node reaches an agent it invokes: which of
// the endpoints on the agent's card it can use, and in which order (ADP
// Section 3.5: lower priority values first, default 0).
//
// [Order] returns the [Target]s for a call of one method:
//
//   - Endpoints of protocol "aitp" (AITP addressed by the agent id) and
//     "libp2p" (the node's listen addresses) are one target, AITP, at the
//     best priority among them: both are calls over libp2p to the peer the
//     agent id names.
//   - Endpoints of protocol "a2a", "jsonrpc" (what an A2A card's JSON-RPC
//     interface becomes on import) and "http+json" (an A2A card's
//     HTTP+JSON interface) with an http or https URI are A2A targets
//     (package node/a2aclient): the first two of the JSON-RPC binding,
//     http+json of the HTTP+JSON (REST) binding. An endpoint's
//     "protocolVersion" member (kept from an A2A card) says which A2A
//     version it speaks.
//   - Other protocols are ignored, as ADP asks of identifiers an
//     implementation does not understand.
//   - An endpoint whose methods list does not name the method is left
//     out, unless that leaves nothing (the list is advisory; the agent
//     answers for a method it lacks).
//   - Targets are sorted by priority; on a tie AITP comes first, then the
//     card's order.
//   - A card with no usable endpoint (or no card) gives AITP alone, the
//     native binding every agent id has.
//
// The caller tries the targets in order and moves to the next one only
// when a target is not reachable; an answer, even an error, ends the call.
//
// The package is pure: no state, safe for concurrent use.
package route
