// Package mcpserver exposes a running adpnode to LLM hosts as a Model
// Context Protocol server, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// A [Server] serves the tools discover_agents, describe_agent,
// invoke_agent, rate_agent, my_card, update_my_card and network_status,
// each with an input and an output schema, and the node's own card and
// each held card as the resource adp://agents/{id}. It calls the node
// only through the [Node] interface: the adpnode mcp command passes an
// httpapi.Client of the user's running node and serves on stdio
// ([Server.Run]); the node passes httpapi.Local of itself and mounts
// [Server.Handler] (Streamable HTTP) at /mcp of its local API. The
// package never imports package node.
//
// Every failure of a tool (a bad argument, an unknown agent, the remote
// status of a call, a streamed reply past DefaultMaxStreamedReply) is a
// tool error (isError, with a text a host can show), never a protocol
// error.
//
// Lifecycle: [New] starts one goroutine that polls the node's card list
// every poll interval and adds or removes resources, which makes the SDK
// send notifications/resources/list_changed to every session. [Server.Close]
// stops it, closes the open sessions and waits. A Server is safe for
// concurrent use.
package mcpserver
