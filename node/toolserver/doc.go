// Package toolserver serves the tools on a node's own card: to other
// agents, as AITP methods on the node's server, and in-process to the
// node's own A2A server (Call), through the same handler, so the demo
// agent, the agent's HTTP server or its MCP server answers both alike.
//
// Register adds a handler for each tool of a card not yet registered
// (ADP method names and names that cannot be AITP methods are never
// registered). A handler serves only while its tool is on the current
// card, so removing a tool from the card takes effect at once; a tool
// with no agent behind it answers NOT_FOUND. Each served call is counted
// by tool and status; the tool label is a registered method, a closed
// set.
//
// A Tools is safe for concurrent use; it owns no goroutine and needs no
// Close (the node closes the agent).
package toolserver
