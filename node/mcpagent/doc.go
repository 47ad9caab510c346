// Package mcpagent puts an MCP server behind a node: it connects to the
// server as an MCP client (over stdio, a command the package starts and
// supervises, or over Streamable HTTP), lists the server's tools as ADP
// tools through the MCP bridge of ADP Appendix A.2 (adp/bridge.FromMCP,
// input schemas kept) and forwards every AITP call to one of them as an
// MCP tools/call.
//
// # Calls
//
// Agent.Call is an aitp handler body. The request body is the tool's
// arguments (a JSON object); it is checked against the tool's input
// schema before it is sent, so that a bad argument answers
// INVALID_REQUEST with the failing path whatever the server does. The
// reply body is the MCP CallToolResult ({"content": [...],
// "structuredContent": ...}). When the caller accepts a streamed reply,
// every MCP progress notification of the call is one chunk
// ({"progress": p, "total": t, "message": m}) and the result is the last.
// The mapping of MCP failures to AITP statuses (call.go):
//
//	unknown tool (-32601, or -32602 "unknown tool")   NOT_FOUND
//	invalid params (-32602), schema check fails        INVALID_REQUEST
//	result with isError: true                          ERROR, code tool_error
//	server down or restarting                          BUSY, code unavailable
//	deadline                                           TIMEOUT
//	any other JSON-RPC error                           ERROR, code internal
//
// # Lifecycle
//
// New checks the options; Start connects (a failure to connect the first
// time is returned: a node with a misconfigured server does not start), lists the tools and starts the supervisor. When the
// server ends its session (the process exits, the HTTP session fails) the
// supervisor reconnects (restarting the command) after a backoff that
// doubles from MinBackoff to MaxBackoff and is reset once a session has
// lived StablePeriod; calls in between fail with BUSY. A
// notifications/tools/list_changed, and every reconnect, re-lists the
// tools; when the list differs, the OnToolsChanged callback receives it
// (the node re-signs and re-publishes its card there). Status reports the
// state, the restart count and the last error. Close stops the supervisor,
// ends the session (the command gets its stdin closed, then SIGTERM) and
// waits; it is idempotent. An Agent is safe for concurrent use.
//
// The MCP protocol is the one of github.com/modelcontextprotocol/go-sdk
// v1.8.0: revision 2026-07-28, negotiated down to 2024-11-05 with older
// servers; Status reports the negotiated revision.
package mcpagent
