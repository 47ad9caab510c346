package a2awire

import "strings"

// Protocol versions: the value of the A2A-Version header (A2A 1.0,
// Section 3.6) and of an interface's protocolVersion.
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
	// speaks, and the response header naming the one a server answered in.
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

// Protocol bindings (A2A 1.0, Section 5), as supportedInterfaces names
// them.
const (
	BindingJSONRPC = "JSONRPC"
	BindingREST    = "HTTP+JSON"
)

// JSON-RPC error codes: JSON-RPC 2.0's own, then A2A's (1.0 Section 9.5,
// the same numbers in 0.3). Append only.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeTaskNotFound                 = -32001
	CodeTaskNotCancelable            = -32002
	CodePushNotificationNotSupported = -32003
	CodeUnsupportedOperation         = -32004
	CodeContentTypeNotSupported      = -32005
	CodeVersionNotSupported          = -32009
)

// reasons are the google.rpc.ErrorInfo reasons A2A 1.0 puts in the data
// of an error (Section 9.5; the HTTP+JSON binding's only code), by code.
var reasons = map[int]string{
	CodeParseError:                   "PARSE_ERROR",
	CodeInvalidRequest:               "INVALID_REQUEST",
	CodeMethodNotFound:               "METHOD_NOT_FOUND",
	CodeInvalidParams:                "INVALID_PARAMS",
	CodeInternalError:                "INTERNAL_ERROR",
	CodeTaskNotFound:                 "TASK_NOT_FOUND",
	CodeTaskNotCancelable:            "TASK_NOT_CANCELABLE",
	CodePushNotificationNotSupported: "PUSH_NOTIFICATION_NOT_SUPPORTED",
	CodeUnsupportedOperation:         "UNSUPPORTED_OPERATION",
	CodeContentTypeNotSupported:      "CONTENT_TYPE_NOT_SUPPORTED",
	CodeVersionNotSupported:          "VERSION_NOT_SUPPORTED",
}

// Reason returns the ErrorInfo reason of a JSON-RPC error code, "" for a
// code A2A does not name.
func Reason(code int) string { return reasons[code] }

// CodeOfReason returns the JSON-RPC code of an ErrorInfo reason, so that
// a failure reported by the HTTP+JSON binding maps to the same code as
// over JSON-RPC; ok is false for a reason A2A does not name.
func CodeOfReason(reason string) (code int, ok bool) {
	for c, r := range reasons {
		if r == reason {
			return c, true
		}
	}
	return 0, false
}

// ErrorInfoType and ErrorDomain fill the ErrorInfo of a 1.0 error.
const (
	ErrorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	ErrorDomain   = "a2a-protocol.org"
)

// Media types.
const (
	MediaJSON = "application/json"
	MediaSSE  = "text/event-stream"
)

// Task states in the 1.0 spelling; State03 gives the 0.3 one. Append
// only.
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

// statePrefix starts every 1.0 task state.
const statePrefix = "TASK_STATE_"

// State03 returns a 1.0 task state as 0.3 writes it: lower case, words
// joined by hyphens ("input-required").
func State03(state string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(state, statePrefix)), "_", "-")
}

// State10 returns a task state of either version in the 1.0 spelling; it
// does not judge whether the state is one A2A names.
func State10(state string) string {
	if strings.HasPrefix(state, statePrefix) {
		return state
	}
	return statePrefix + strings.ToUpper(strings.ReplaceAll(state, "-", "_"))
}

// A message that names a tool: one data part {"tool", "arguments"}, and
// the tool's name as the skill id in the message metadata.
const (
	// PartTool and PartArguments are the members of the data part.
	PartTool      = "tool"
	PartArguments = "arguments"
	// MetadataSkillID is the message metadata member holding the skill id.
	MetadataSkillID = "skillId"
)
