package a2aclient

// The A2A wire constants the client shares with the server (versions,
// methods, codes, states, media types) are in node/a2awire. Here: the
// REST paths of the HTTP+JSON binding, and the client's own limits.
// Append only.
const (
	// REST paths of a send and a stream (HTTP+JSON binding; 0.3 put them
	// under /v1), relative to the interface URL.
	restSend         = "/message:send"
	restStream       = "/message:stream"
	legacyRESTPrefix = "/v1"
)

// Limits.
const (
	// DefaultMaxReply bounds a reply body, or the sum of a stream's
	// events, in octets (WithMaxReply changes it).
	DefaultMaxReply = 16 << 20
	// MaxEvent bounds one server-sent event of a stream in octets.
	MaxEvent = 1 << 20
	// MaxErrorText bounds the text of a remote error or a failed task's
	// message that the client keeps; the rest is cut.
	MaxErrorText = 512
)
