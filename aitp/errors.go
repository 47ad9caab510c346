package aitp

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors.
var (
	ErrMalformed      = errors.New("aitp: malformed message")
	ErrVersion        = errors.New("aitp: unsupported version")
	ErrTooLarge       = errors.New("aitp: message too large")
	ErrBodyTooLarge   = errors.New("aitp: body too large")
	ErrBadMethod      = errors.New("aitp: bad method name")
	ErrClosed         = errors.New("aitp: closed")
	ErrConnLost       = errors.New("aitp: stream lost")
	ErrAborted        = errors.New("aitp: association aborted")
	ErrCircuitOpen    = errors.New("aitp: circuit open")
	ErrStreamOverflow = errors.New("aitp: reply stream buffer overflow")
	ErrProtocol       = errors.New("aitp: protocol violation")
	ErrBusyWriter     = errors.New("aitp: stream write queue full")
)

// Error is a failure reported by the remote end (or produced by a handler
// to choose its status). Its wire form is a RESPONSE with Status and a
// JSON body {"code", "message", "path"}.
type Error struct {
	Status  Status `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
	// RetryAfter is, on a BUSY answer, the seconds after which the
	// caller may try again (0: not said).
	RetryAfter int `json:"retry_after,omitempty"`
}

// Busy returns a BUSY error with code (CodeBusy, or CodeRateLimited for
// a caller over its rate) asking the caller to wait retryAfter (rounded
// up to whole seconds, at least one) before trying again.
func Busy(code string, retryAfter time.Duration, format string, args ...any) *Error {
	secs := int((retryAfter + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	e := Errorf(StatusBusy, code, "", format, args...)
	e.RetryAfter = secs
	return e
}

// Errorf builds an *Error with a formatted message.
func Errorf(st Status, code, path, format string, args ...any) *Error {
	return &Error{Status: st, Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	s := "aitp: " + e.Status.String()
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Path != "" {
		s += " at " + e.Path
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// body is the JSON error model.
func (e *Error) body() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		return []byte(`{"code":"internal","message":"unencodable error"}`)
	}
	return b
}

// maxErrorText bounds what a remote error may put in Message and Code.
const maxErrorText = 4096

// errorFromResponse builds the *Error of a non-OK RESPONSE. A body that is
// not the JSON model becomes the message, truncated.
func errorFromResponse(st Status, body []byte) *Error {
	e := &Error{Status: st}
	if len(body) > 0 && json.Unmarshal(body, e) == nil {
		e.Status = st
	} else {
		e.Code, e.Message = defaultCode(st), string(body)
	}
	if e.Code == "" {
		e.Code = defaultCode(st)
	}
	if len(e.Message) > maxErrorText {
		e.Message = e.Message[:maxErrorText]
	}
	if len(e.Code) > 64 {
		e.Code = e.Code[:64]
	}
	if len(e.Path) > maxErrorText {
		e.Path = e.Path[:maxErrorText]
	}
	return e
}

func defaultCode(st Status) string {
	switch st {
	case StatusTimeout:
		return CodeTimeout
	case StatusNotFound:
		return CodeNotFound
	case StatusBusy:
		return CodeBusy
	case StatusUnauthorized:
		return CodeUnauthorized
	case StatusInvalidRequest:
		return CodeInvalidRequest
	default:
		return CodeInternal
	}
}

// StatusOf returns the status carried by err when it is (or wraps) an
// *Error.
func StatusOf(err error) (Status, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Status, true
	}
	return 0, false
}
