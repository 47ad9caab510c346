package a2aserver

import "time"

// The A2A wire constants the server shares with the client (versions,
// methods, codes, error reasons, states, media types) are in
// node/a2awire. Here: the server's own limits.

// Limits. Everything a client sends is bounded before it is decoded.
const (
	// MaxRequestBody bounds a JSON-RPC request body.
	MaxRequestBody = 1 << 20
	// MaxParts bounds the parts of one message.
	MaxParts = 64
	// MaxIDLen bounds a JSON-RPC id, a task, context or message id.
	MaxIDLen = 256
	// DefaultMaxTasks is how many tasks the store keeps (WithMaxTasks).
	DefaultMaxTasks = 1024
	// DefaultMaxTaskBytes bounds the octets of the messages and replies
	// the kept tasks hold (WithMaxTaskBytes).
	DefaultMaxTaskBytes = 64 << 20
	// DefaultTaskTTL is how long a finished task stays readable by
	// GetTask (WithTaskTTL).
	DefaultTaskTTL = time.Hour
	// DefaultCallTimeout bounds one tool call (WithCallTimeout).
	DefaultCallTimeout = 5 * time.Minute
	// DefaultMaxRunning bounds the tool calls in flight (WithMaxRunning).
	DefaultMaxRunning = 64
	// DefaultMaxPublicRunning bounds the calls in flight that came through
	// PublicHandler, so that the local API always has the rest, and
	// DefaultMaxRunningPerSource those from one source, an IPv4 address
	// or an IPv6 /64 (WithPublicRunning).
	DefaultMaxPublicRunning    = 48
	DefaultMaxRunningPerSource = 8
	// maxReplyBytes bounds what one task keeps of a reply: the sum of its
	// artifact parts. A longer reply fails the task.
	maxReplyBytes = 16 << 20
	// replyArtifactName names the artifact that carries a tool's reply.
	replyArtifactName = "reply"
	// sseHeartbeat is the interval of the comment line that keeps an
	// idle event stream open through proxies.
	sseHeartbeat = 15 * time.Second
	// streamWriteTimeout bounds one write of an event stream: a client
	// that stops reading ends its stream, not the server's handler.
	streamWriteTimeout = 10 * time.Second
)
