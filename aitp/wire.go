package aitp

import "time"

// This file holds every constant that appears on the wire. docs/protocol.md
// is the normative description; keep the two in step. Enumerations that go
// on the wire are append only: never renumber or reuse a value.

// ProtocolID is the libp2p protocol that carries AIP messages.
const ProtocolID = "/adp/aip/1.0.0"

// ServiceName is the libp2p resource-manager service the server's streams
// are attributed to.
const ServiceName = "adp.aitp"

// AIP message limits and layout.
const (
	// Version is the only AIP version this package speaks.
	Version = 1
	// MaxMessageSize is the largest AIP message, header included (the
	// total_length field is 16 bits wide).
	MaxMessageSize = 65535
	// MessageHeaderSize is the fixed part of an AIP message: version,
	// flags, ttl, next_proto, total_length, options_length, src_len,
	// dst_len.
	MessageHeaderSize = 10
	// MaxAddressLen bounds src and dst (their length fields are 8 bits).
	MaxAddressLen = 255
	// DefaultTTL is the ttl this package puts on the messages it sends.
	DefaultTTL = 64
)

// NextProto values: what the AIP payload carries (append only).
const (
	NextProtoControl uint8 = 0 // AIP control message
	NextProtoAITP    uint8 = 1 // AITP segment
)

// AIP option types (TLV: type u8, length u8, value). A receiver skips an
// option it does not know unless the type has OptionMustUnderstand set, in
// which case it drops the message and reports ControlParameterProblem.
// Append only.
const (
	OptionMustUnderstand uint8 = 0x80
	// OptionDeadline carries the time the sender allows the request, in
	// milliseconds from receipt, as a big-endian uint32 (4 octets).
	OptionDeadline uint8 = 0x01
)

// AIP control codes (the first octet of a control payload; append only).
const (
	ControlDestinationUnknown  uint8 = 1
	ControlTTLExceeded         uint8 = 2
	ControlTooBig              uint8 = 3
	ControlProtocolUnsupported uint8 = 4
	ControlParameterProblem    uint8 = 5
)

// ControlHeaderSize is code u8, reserved u8, pointer u16; at most
// MaxControlQuote octets of the offending message follow.
const (
	ControlHeaderSize = 4
	MaxControlQuote   = 64
)

// AITP segment layout and limits.
const (
	// SegmentHeaderSize is the fixed part of a segment: type, flags,
	// status, method_len, association_id, request_id, sequence, window,
	// body_length.
	SegmentHeaderSize = 20
	// MaxMethodLen is the longest method name (method_len is 8 bits).
	MaxMethodLen = 255
	// MaxBodyPerMessage is the largest body one message can carry (empty
	// addresses, no options, empty method).
	MaxBodyPerMessage = MaxMessageSize - MessageHeaderSize - SegmentHeaderSize
)

// SegmentType is the AITP segment type (append only).
type SegmentType uint8

// Segment types.
const (
	TypeRequest  SegmentType = 1  // a call; more body follows as STREAM unless FIN
	TypeResponse SegmentType = 2  // the final answer to a request, always FIN
	TypeStream   SegmentType = 3  // a body chunk of a request or reply
	TypeCancel   SegmentType = 4  // the caller gives up on a request
	TypeOpen     SegmentType = 5  // opens an association, carries the sender's window
	TypeAccept   SegmentType = 6  // accepts an association, carries the receiver's window
	TypeWindow   SegmentType = 7  // changes the sender's window
	TypePing     SegmentType = 8  // liveness probe, request_id is a nonce
	TypePong     SegmentType = 9  // answer to PING with the same nonce
	TypeClose    SegmentType = 10 // orderly close: drain, then CLOSE_ACK
	TypeCloseAck SegmentType = 11 // the association has drained
	TypeAbort    SegmentType = 12 // fail every in-flight request now
)

var typeNames = [...]string{
	"INVALID", "REQUEST", "RESPONSE", "STREAM", "CANCEL", "OPEN", "ACCEPT",
	"WINDOW", "PING", "PONG", "CLOSE", "CLOSE_ACK", "ABORT",
}

func (t SegmentType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "TYPE(" + itoa(int(t)) + ")"
}

// Segment flags. Unknown flags are ignored.
const (
	FlagFin         uint8 = 0x01 // last segment of a body
	FlagStreamReply uint8 = 0x02 // the caller accepts a streamed reply
	FlagNoReply     uint8 = 0x04 // reserved; this implementation answers INVALID_REQUEST
)

// Status is the dispatch status carried by a RESPONSE (append only).
// Unknown values are failures, passed to the caller unchanged.
type Status uint8

// Status codes. 3 to 6 are dispatch-level: the handler never ran.
const (
	StatusOK             Status = 0
	StatusError          Status = 1
	StatusTimeout        Status = 2
	StatusNotFound       Status = 3
	StatusBusy           Status = 4
	StatusUnauthorized   Status = 5
	StatusInvalidRequest Status = 6
)

var statusNames = [...]string{
	"OK", "ERROR", "TIMEOUT", "NOT_FOUND", "BUSY", "UNAUTHORIZED", "INVALID_REQUEST",
}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "STATUS(" + itoa(int(s)) + ")"
}

// Label is the status as a metric label value: its name when defined,
// "other" for the values a peer may send that this version does not
// know, so that a label fed by peers takes at most len(statusNames)+1
// values.
func (s Status) Label() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return OtherLabel
}

// OtherLabel is the metric label value that stands for every value of a
// label outside its closed set: an unknown status, a method no handler
// is registered for.
const OtherLabel = "other"

// Error codes of the JSON error body (discovery profile, section 12).
const (
	CodeInvalidRequest    = "invalid_request"
	CodeUnsupportedFilter = "unsupported_filter"
	CodeUnauthorized      = "unauthorized"
	CodeForbidden         = "forbidden"
	CodeConflict          = "conflict"
	CodeNotFound          = "not_found"
	CodeStaleMetadata     = "stale_metadata"
	CodeRateLimited       = "rate_limited"
	CodeInternal          = "internal"
	CodeTimeout           = "timeout" // status TIMEOUT
	CodeCanceled          = "canceled"
	CodeBusy              = "busy"
)

// Defaults of the options.
const (
	DefaultWindow          = 64
	DefaultMaxPeerInflight = 256
	DefaultMaxInflight     = 4096
	DefaultMaxStreamsPeer  = 8
	DefaultMaxRequestBody  = 1 << 20
	DefaultMaxResponseBody = 16 << 20
	DefaultMaxStreamBuffer = 4 << 20
	DefaultMaxPartialBytes = 4 << 20
	DefaultHandlerTimeout  = 60 * time.Second
	DefaultServerIdle      = 2 * time.Minute
	DefaultClientIdle      = time.Minute
	DefaultOpenTimeout     = 10 * time.Second
	DefaultWriteTimeout    = 30 * time.Second
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 10 * time.Second
)

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	neg := v < 0
	if neg {
		v = -v
	}
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
