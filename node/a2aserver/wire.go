package a2aserver

import "time"

// Protocol versions this server speaks: the value of the A2A-Version
// header (A2A 1.0, Section 3.6) and of an interface's protocolVersion.
const (
	// Version10 is A2A 1.0: methods SendMessage, SendStreamingMessage,
	// GetTask and CancelTask, ProtoJSON shapes (TASK_STATE_COMPLETED,
	// ROLE_AGENT, {"task": ...} results).
	Version10 = "1.0"
	// Version03 is A2A 0.3: methods message/send, message/stream,
	// tasks/get and tasks/cancel, objects tagged by "kind", lower-case
	// states ("completed").
	Version03 = "0.3"
	// VersionHeader is the request header naming the version a client
	// speaks, and the response header naming the one the server answered in.
	VersionHeader = "A2A-Version"
)

// JSON-RPC methods (A2A 1.0 Section 9.4; 0.3 Section 7). Append only.
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodCancelTask           = "CancelTask"

	MethodSend03   = "message/send"
	MethodStream03 = "message/stream"
	MethodGet03    = "tasks/get"
	MethodCancel03 = "tasks/cancel"
)

// JSON-RPC error codes: JSON-RPC 2.0's own, then A2A's (1.0 Section
// 9.5, the same numbers in 0.3). Append only.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeTaskNotFound               = -32001
	CodeTaskNotCancelable          = -32002
	CodePushNotificationNotSupport = -32003
	CodeUnsupportedOperation       = -32004
	CodeContentTypeNotSupported    = -32005
	CodeVersionNotSupported        = -32009
)

// errorReasons are the google.rpc.ErrorInfo reasons A2A 1.0 puts in the
// data of an error (Section 9.5), by code.
var errorReasons = map[int]string{
	CodeParseError:                 "PARSE_ERROR",
	CodeInvalidRequest:             "INVALID_REQUEST",
	CodeMethodNotFound:             "METHOD_NOT_FOUND",
	CodeInvalidParams:              "INVALID_PARAMS",
	CodeInternalError:              "INTERNAL_ERROR",
	CodeTaskNotFound:               "TASK_NOT_FOUND",
	CodeTaskNotCancelable:          "TASK_NOT_CANCELABLE",
	CodePushNotificationNotSupport: "PUSH_NOTIFICATION_NOT_SUPPORTED",
	CodeUnsupportedOperation:       "UNSUPPORTED_OPERATION",
	CodeContentTypeNotSupported:    "CONTENT_TYPE_NOT_SUPPORTED",
	CodeVersionNotSupported:        "VERSION_NOT_SUPPORTED",
}

const (
	// errorInfoType and errorDomain fill a 1.0 error's ErrorInfo.
	errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	errorDomain   = "a2a-protocol.org"
)

// Media types.
const (
	contentJSON = "application/json"
	contentSSE  = "text/event-stream"
)

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
	// maxReplyBytes bounds what one task keeps of a reply: the sum of its
	// artifact parts. A longer reply fails the task.
	maxReplyBytes = 16 << 20
	// replyArtifactName names the artifact that carries a tool's reply.
	replyArtifactName = "reply"
	// sseHeartbeat is the interval of the comment line that keeps an
	// idle event stream open through proxies.
	sseHeartbeat = 15 * time.Second
)
