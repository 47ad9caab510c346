// Package aitp is adpnode's invocation layer: agents call each other by
// method name over libp2p. It knows nothing of ADP; package adp registers
// its methods on a Server like any other application.
//
// # Wire
//
// One libp2p protocol, ProtocolID ("/adp/aip/1.0.0"), carries AIP
// messages: a 10-octet header that is also the framing (total_length),
// optional source and destination agent URIs, TLV options and a payload of
// at most 65535 octets in all. An AIP message whose next_proto is
// NextProtoAITP carries one AITP segment: a 20-octet header (type, flags,
// status, association, request id, sequence, window, lengths), the method
// and a body. Bodies larger than one message travel as STREAM chunks in
// either direction. wire.go lists every constant; docs/protocol.md is the
// specification. Message, Segment, AppendMessage, DecodeMessage,
// AppendSegment and DecodeSegment are the codec; decoding never copies or
// allocates.
//
// # Server
//
// NewServer registers the protocol on a host. Handle and HandleFunc bind
// methods to Handlers in the manner of net/http. Each inbound stream is one
// association: the caller's OPEN is answered with ACCEPT and the server's
// window, the number of requests it runs at once for that association.
// Dispatch answers NOT_FOUND (no such method), BUSY (window, per-peer or
// server bound exceeded, or the association closing), UNAUTHORIZED (the
// WithAuthorizer hook refused), INVALID_REQUEST (bad method, segment or
// body) and, from the handler, OK, ERROR (an error or a panic) or TIMEOUT
// (the caller's deadline option or WithHandlerTimeout passed). CANCEL
// cancels the handler's context. A peer that breaks the framing has its
// stream reset; nothing else is affected. Shutdown sends CLOSE on every
// association and waits for them to drain; Close aborts at once. Both
// wait for every goroutine the server started, handlers included.
//
// # Client
//
// NewClient returns a Client that keeps one stream per peer and
// multiplexes calls on it by request id. Call returns the reply body or an
// error: a remote failure is an *Error carrying the Status (errors.As,
// StatusOf). Stream returns a ReplyStream whose Next yields the chunks the
// handler writes. The client never has more calls outstanding than the
// server's window (excess calls queue), sends CANCEL when a call's context
// ends, resends on a new stream any call whose request never went into its
// dead stream, or whose stream never opened because the connection the
// dial returned closed first (the remote cannot have seen it), or that the
// server refused with BUSY while closing the association, retries a call
// marked Idempotent once when the stream breaks after that, and keeps a
// per-peer circuit breaker (WithBreaker, WithClock). Client.Close aborts
// every association and waits for its reader goroutines.
//
// # Hot path
//
// A server's read loop hands itself to a parked goroutine when a request
// becomes runnable and runs the handler in place; a caller waiting for
// its reply reads the stream itself when no other goroutine is reading;
// frames written concurrently on a stream are coalesced into one write.
// BenchmarkCall compares Call with a raw libp2p stream echo.
//
// # Metrics
//
// WithServerRegisterer and WithClientRegisterer register aitp_server_* and
// aitp_client_* collectors on a prometheus.Registerer (one server and one
// client per registerer); without them nothing is registered. Every label
// comes from a closed set, whatever peers send: aitp_server_requests_total
// counts by method and status, a method keeping its name once a handler
// is registered for it and every other method counted as OtherLabel
// ("other"), as is a status this version does not define (Status.Label).
//
// Server and Client are safe for concurrent use.
package aitp
