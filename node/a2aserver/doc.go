// Package a2aserver is an A2A server in front of one agent: it answers
// the JSON-RPC binding of A2A 1.0 (and the method names and shapes of
// A2A 0.3, which many deployed clients still speak) and carries each
// message to one of the agent's tools as an AITP call, through the
// narrow Agent interface the node implements.
//
// # Methods
//
//	A2A 1.0               A2A 0.3          answer
//	SendMessage           message/send     the task, once it has finished (configuration.returnImmediately / blocking false: at once)
//	SendStreamingMessage  message/stream   text/event-stream: the task, status "working", one artifact update per reply chunk, the final status
//	GetTask               tasks/get        the task (historyLength honoured)
//	CancelTask            tasks/cancel     the task, canceled: its call's context is cancelled
//
// The A2A-Version request header selects the version: "1.0" or "0.3" (a
// patch number is ignored); another value is refused with -32009
// (VersionNotSupported). Without the header the method name decides. A
// method of the other version than the header names is -32601 (the
// message names the right method). Every answer carries A2A-Version with
// the version it is written in. Errors follow JSON-RPC 2.0 and A2A:
// -32700 parse error, -32600 invalid request (batch, notification, no
// "jsonrpc": "2.0", a body over MaxRequestBody: HTTP 413), -32601, -32602
// invalid params, -32001 TaskNotFound, -32002 TaskNotCancelable, -32003
// push notifications (not supported), -32004 UnsupportedOperation (a
// message continuing a task), -32005 ContentTypeNotSupported (file
// parts). Each names the JSON Pointer of the member at fault: in 1.0 in
// the metadata of the google.rpc.ErrorInfo of error.data, in 0.3 as
// error.data.path.
//
// # Routing a message to a tool
//
// The agent's A2A skills are its card's tools (bridge.ToA2A: skill id =
// tool name). A message calls one tool, chosen in this order:
//
//  1. a data part {"tool": NAME, "arguments": {...}}: that tool with those
//     arguments ({} when absent);
//  2. metadata.skillId (of the message, else of the request): that tool;
//  3. an agent with exactly one tool: that tool.
//
// A name that is not a tool of the card is -32602, as is a message that
// names none to an agent of several tools. Unless step 1 gave them, the
// arguments are the message's one data part (a JSON object); without
// one, the text of its text parts, joined by newlines, becomes one
// string property: "text" when the tool's input schema has no
// properties (or there is no schema), else the one required property
// when it is a string, else (nothing required) the one string property.
// A tool whose schema has no such place takes no text (-32602: send a
// data part).
//
// # Replies
//
// The tool's reply becomes the task's artifact "reply": one part per
// reply chunk (a streamed call, SendStreamingMessage) or one part in all.
// A reply that is a JSON string is a text part, any other JSON a data
// part (in 0.3, whose DataPart holds objects only, a non-object is its
// JSON text). A failed call ends the task failed, with the AITP error
// code and message as the status message's text.
//
// # Bounds
//
// Request bodies are read up to MaxRequestBody; messages hold at most
// MaxParts parts; ids at most MaxIDLen octets. Tasks live in memory: at
// most WithMaxTasks of them, holding at most WithMaxTaskBytes of messages
// and replies, a finished one readable for WithTaskTTL; a new task (or
// reply chunk) evicts the expired ones, then the oldest finished ones,
// and is refused (-32603; a chunk fails its task) when only running
// tasks are left, as is a send while WithMaxRunning calls are in flight.
// Calls that came through PublicHandler are also bounded apart, in all
// and per source (an IPv4 address, an IPv6 /64; WithPublicRunning), so
// that the local API keeps a share no stranger can take. A call ends
// after WithCallTimeout; a reply over 16 MiB fails its task.
//
// # Use
//
// New returns a Server, which is an http.Handler for POST requests at the
// URL its card names: export the card with
// bridge.ToA2A(WithJSONRPC(card, url)) wherever the A2A card is served,
// so the card's JSON-RPC interfaces (1.0 and 0.3) and the mount agree.
// The node mounts one Server at httpapi.A2APath of its local API, and
// the same Server's PublicHandler on its public server. Close
// cancels the calls in flight (their tasks end canceled), which also ends
// the open event streams, and waits for the calls. A Server is safe for
// concurrent use.
package a2aserver
