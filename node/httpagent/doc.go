// Package httpagent puts an agent's own HTTP server behind a node
// (`adpnode run --agent-url URL`): every AITP call to one of the card's
// tools becomes a JSON POST to <URL>/<tool>, and the server's answer
// becomes the call's reply.
//
// # The agent's side
//
// The request body is the call's body ({} when the caller sent none),
// with Content-Type application/json and the calling agent's
// agent://k51... id in the X-ADP-Caller header (the node's own agent id
// when the node's A2A server calls the agent for an A2A client). A caller that accepts a streamed reply is announced by
// Accept: application/x-ndjson, application/json; the server may then
// answer with application/x-ndjson (or any chunked body): every
// non-empty line is one stream chunk, at most aitp.MaxBodyPerMessage
// bytes. Any other 2xx reply is the call's reply, at most MaxReply
// bytes. Redirects are not followed.
//
// The HTTP status maps to an AITP status (StatusFromHTTP):
//
//	2xx              OK
//	400, 422         INVALID_REQUEST, code invalid_request
//	401              UNAUTHORIZED, code unauthorized
//	403              UNAUTHORIZED, code forbidden
//	404              NOT_FOUND, code not_found
//	429              BUSY, code rate_limited
//	503              BUSY, code busy
//	504              TIMEOUT, code timeout
//	anything else    ERROR, code internal
//
// A failure's body in the discovery profile's error model
// ({"code", "message", "path"}) is passed to the caller as it is;
// any other body becomes the message, cut to 1,024 bytes. A server that
// cannot be reached answers ERROR; one that does not answer within the
// call's deadline (DefaultTimeout when the caller sent none), or does not
// send its headers within DefaultTimeout whatever the deadline, TIMEOUT.
//
// # Lifecycle
//
// New parses the URL; Call may run at once from any number of
// goroutines; Close releases the idle connections to the server. An
// Agent is safe for concurrent use.
package httpagent
