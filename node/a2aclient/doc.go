// Package a2aclient calls agents that speak A2A (the Agent2Agent
// protocol) instead of AITP: the node uses it to invoke an agent whose
// card lists an A2A JSON-RPC endpoint and no AITP one, so that the
// network reaches agents that do not run adpnode.
//
// # Calls
//
// A [Client] maps a tool call (a tool name and JSON arguments) to one A2A
// message and its reply back to one JSON value:
//
//	request   SendMessage (A2A 1.0, header A2A-Version: 1.0) with a user
//	          message of one data part {"tool": name, "arguments": args}
//	          and metadata {"skillId": name} (the node's A2A cards list
//	          each tool as a skill of the same id)
//	0.3       message/send (A2A-Version: 0.3, 0.3 shapes) when the card
//	          names protocolVersion 0.x for the endpoint, or when the
//	          server answers "method not found" or "version not supported"
//	reply     a Message: its parts; a Task: completed, the parts of its
//	          artifacts in order (its status message's when it has none);
//	          failed, rejected, canceled, input-required or auth-required,
//	          a *TaskError with the status message's text
//	parts     none: null; one: its value; several: an array of values. A
//	          data part's value is its data, a text part's its text as a
//	          JSON string, a file {"url" or "raw": ..., "mediaType": ...}
//
// [Client.Stream] sends SendStreamingMessage (message/stream for 0.3) and
// reads server-sent events: each artifact update (or a final message) is
// one chunk. A server that cannot stream is called with SendMessage and
// its result is the one chunk.
//
// An [Endpoint] of the HTTP+JSON binding (a2awire.BindingREST) gets the same
// message without the JSON-RPC envelope: POST {url}/message:send or
// {url}/message:stream ({url}/v1/... for 0.3, tried after a 404), replies
// and events are the result objects themselves, and an error is a
// google.rpc.Status {"error": {"code", "status", "message", "details"}}
// whose ErrorInfo reason (or else HTTP status) gives the *RemoteError the
// JSON-RPC code of the same error.
//
// # Errors
//
// A JSON-RPC error is a *RemoteError with its code; a task that did not
// complete is a *TaskError. ErrUnreachable wraps a connection that was
// refused, failed or was lost, and HTTP 502/503/504 (a gateway says the
// server is down): the caller may try another endpoint. ErrBadReply is an
// answer that is not an A2A reply to the request (wrong JSON, another
// request id, a result of the wrong shape, a redirect), ErrTooLarge (also
// an ErrBadReply) one past its bound. The caller's own deadline or
// cancellation is returned as it is: timeouts come from the context.
//
// # What the client calls
//
// Only http and https URLs. Connections are checked after name
// resolution (so a host name cannot lead elsewhere), by the policy of
// internal/netguard that the node's DID resolution shares: link-local
// addresses (169.254.0.0/16, fe80::/10, where cloud metadata services
// answer), fd00:ec2::254, unspecified and multicast addresses are always
// refused; loopback and private addresses (10/8, 172.16/12, 192.168/16,
// 100.64/10, fc00::/7) only with [WithPrivateAddresses], since a card
// from the network must not make the node call into its own machine or
// network. Redirects are not followed and the environment's HTTP proxy
// is not used. A reply is bounded by DefaultMaxReply octets (the sum of a
// stream's events too), an event by MaxEvent; remote error texts are cut
// to MaxErrorText.
//
// A Client is safe for concurrent use; Close releases idle connections
// and is idempotent. It starts no goroutines of its own.
package a2aclient
