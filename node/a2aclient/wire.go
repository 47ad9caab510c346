package a2aclient

// Wire constants of the A2A JSON-RPC and HTTP+JSON bindings (A2A 1.0,
// and 0.3 for older servers). Method names, paths, versions and codes are
// what servers expect on the wire: append only.
const (
	// Version is the A2A protocol version the client speaks first; it goes
	// in the A2A-Version header.
	Version = "1.0"
	// LegacyVersion is the version of the fallback method names.
	LegacyVersion = "0.3"
	// VersionHeader is the HTTP header that names the protocol version of
	// a request (A2A 1.0, Section 3.6).
	VersionHeader = "A2A-Version"

	methodSend         = "SendMessage"          // 1.0
	methodStream       = "SendStreamingMessage" // 1.0
	legacyMethodSend   = "message/send"         // 0.3
	legacyMethodStream = "message/stream"       // 0.3

	// REST paths of a send and a stream (HTTP+JSON binding; 0.3 put them
	// under /v1), relative to the interface URL.
	restSend         = "/message:send"
	restStream       = "/message:stream"
	legacyRESTPrefix = "/v1"

	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"
)

// Protocol bindings (A2A 1.0, Section 5), as supportedInterfaces names
// them.
const (
	BindingJSONRPC = "JSONRPC"
	BindingREST    = "HTTP+JSON"
)

// restReasonCodes maps the reason of an A2A error's ErrorInfo detail (the
// HTTP+JSON binding) to the JSON-RPC code of the same error, so that both
// bindings fail alike.
var restReasonCodes = map[string]int{
	"TASK_NOT_FOUND":             CodeTaskNotFound,
	"UNSUPPORTED_OPERATION":      CodeUnsupportedOperation,
	"CONTENT_TYPE_NOT_SUPPORTED": CodeContentTypeUnsupported,
	"VERSION_NOT_SUPPORTED":      CodeVersionNotSupported,
	"INVALID_PARAMS":             CodeInvalidParams,
}

// JSON-RPC error codes the client acts on (JSON-RPC 2.0 and A2A 1.0,
// Section 9.5).
const (
	CodeParseError             = -32700
	CodeInvalidRequest         = -32600
	CodeMethodNotFound         = -32601
	CodeInvalidParams          = -32602
	CodeInternalError          = -32603
	CodeTaskNotFound           = -32001
	CodeUnsupportedOperation   = -32004
	CodeContentTypeUnsupported = -32005
	CodeVersionNotSupported    = -32009
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

// Message content the client writes: one data part naming the tool and
// its arguments, and the tool's name as the skill id in the message
// metadata.
const (
	// PartTool and PartArguments are the members of the data part.
	PartTool      = "tool"
	PartArguments = "arguments"
	// MetadataSkill is the message metadata member holding the skill id.
	MetadataSkill = "skillId"
)

// Task states a reply may end in (1.0 spelling; 0.3 spells them in lower
// case with hyphens, see normalizeState). Failed, rejected, canceled,
// input-required and auth-required end a call with a *TaskError.
const (
	StateSubmitted     = "TASK_STATE_SUBMITTED"
	StateWorking       = "TASK_STATE_WORKING"
	StateCompleted     = "TASK_STATE_COMPLETED"
	StateFailed        = "TASK_STATE_FAILED"
	StateCanceled      = "TASK_STATE_CANCELED"
	StateInputRequired = "TASK_STATE_INPUT_REQUIRED"
	StateRejected      = "TASK_STATE_REJECTED"
	StateAuthRequired  = "TASK_STATE_AUTH_REQUIRED"
)
