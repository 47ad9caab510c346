// Package httpapi is the node's HTTP API on a loopback address: decode a
// request, call one method of a [Service], encode the answer. It holds no
// node logic and does not import package node: the node passes itself as
// the Service.
//
// [NewHandler] routes /v1/card, /v1/cards[/{id}], /v1/discover,
// /v1/describe, /v1/invoke (JSON or NDJSON stream), /v1/ratings,
// /v1/advertise, /v1/peers, /v1/status, /v1/arrivals (at most
// MaxArrivalAgents agent parameters), /v1/network, /v1/events
// (server-sent events of card and peer changes: at most
// MaxEventSubscribers streams, each with a bounded buffer and a
// heartbeat, ended by Server.Shutdown), /healthz, /metrics, the
// /.well-known documents and /agents/{id}/ad.json (built by package
// node/wellknown, with its caching headers) and the web view of
// package webui at "/", behind a guard that
// refuses non-loopback Host names, cross-site browser requests and
// non-JSON bodies, and bounds every body to MaxAPIBody. [NewServer] adds
// the timeouts and header bound of the server.
//
// Errors follow the discovery profile's error model ([Error]: code,
// message, path). A Service returns sentinel and typed errors (package
// nodeapi, discovery.ErrBadScope, adp, store, aitp) and never an HTTP
// status; [ErrorOf] maps each to its code and status in one place.
//
// [Client] is the one typed Go client of the API, used by the adpnode CLI
// and by package testnet; the request and response types it decodes are
// the ones the handlers encode. A running node publishes its base URL in
// the [APIFileName] file of its data directory ([APIFile],
// [ReadAPIFile]).
//
// [Local] has the typed operations of Client over a Service in the same
// process, with the handlers' checks and errors; the node's MCP server
// (package node/mcpserver) takes either. [WithMCP] mounts an MCP server's
// Streamable HTTP transport at [MCPPath] behind the same guards; [WithA2A]
// mounts an A2A server (package node/a2aserver) at POST [A2APath] and
// makes the A2A card at /.well-known/agent-card.json name it as its
// JSON-RPC interface (a2aserver.WithJSONRPC).
//
// GET /v1/cards/{id} also reports whether the card's signature verifies,
// and with ?format=a2a (agentcard, oasf, any format of package bridge)
// answers the card converted to that format.
//
// Handlers, Client and Local are safe for concurrent use; none owns
// goroutines.
package httpapi
