// Package invoke reaches other agents for a node: it calls a tool over
// the targets an agent's held card offers and says every failure in the
// node's terms.
//
// # Routes
//
// Caller.Invoke and Caller.InvokeStream try the targets of the held card
// in the order of package node/route (ADP priority, AITP first on a tie;
// an agent with no card held, or none with endpoints, is called over
// AITP): AITP over libp2p (package aitp), or A2A over HTTP (package
// node/a2aclient) for an endpoint of that protocol. They move to the next
// target only when one was not reachable, and a stream only when no chunk
// had reached the caller yet. An AITP call to a tool the held card marks
// idempotent may be retried once after a lost stream (aitp.Idempotent).
//
// # Re-dials
//
// An AITP call that was never sent is tried again at once (Caller.Call,
// at most twice more) when a dial found no address for the peer while
// addresses are known now (re-learned from its held card, else looked up
// in the DHT), when libp2p's dial backoff refused it (the DHT is asked for
// the peer's current addresses and the backoff is cleared: a peer that
// restarted is reached without waiting for the backoff to expire), or
// when every address failed and the DHT knows addresses the peerstore did
// not (the peer moved).
//
// # Errors
//
// A failure that never reached the agent (no address, refused dial, lost
// connection, open circuit breaker, an A2A endpoint that cannot be
// reached or whose address is refused) wraps nodeapi.ErrUnreachable, in
// words a user can act on; the transport's error stays available to
// errors.Is and errors.As. An agent's answer is an *aitp.Error: an A2A
// JSON-RPC error or a task that ended without a result becomes the AITP
// status it corresponds to, so that every caller of the node treats both
// protocols alike. A reply that cannot be decoded or verified (package
// adp's errors) and the caller's own deadline or cancellation are passed
// through as they are.
//
// A Caller holds no state of its own beyond its Config and is safe for
// concurrent use; it has nothing to close.
package invoke
