package a2aserver

import (
	"errors"
	"fmt"

	"github.com/adpnode/adpnode/node/a2awire"
)

var (
	// ErrClosed is returned by calls on a closed Server.
	ErrClosed = errors.New("a2aserver: closed")
	// ErrBusy means the task store or the running calls are at their bound.
	ErrBusy = errors.New("a2aserver: too many tasks")
	// ErrTaskNotFound means no task has the id (or it has expired).
	ErrTaskNotFound = errors.New("a2aserver: task not found")
	// ErrNotCancelable means the task has already finished.
	ErrNotCancelable = errors.New("a2aserver: task not cancelable")
)

// Error is a JSON-RPC error answer: Code is one of the Code constants,
// Path the JSON Pointer of the member of the request at fault ("" when
// the fault is not in one member).
type Error struct {
	Code    int
	Message string
	Path    string
}

func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Message)
	}
	return e.Message
}

// rpcErr returns an *Error.
func rpcErr(code int, path, format string, args ...any) *Error {
	return &Error{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
}

// errorOf maps the store's sentinel errors to their JSON-RPC answers.
func errorOf(err error, path string) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrTaskNotFound):
		return rpcErr(a2awire.CodeTaskNotFound, path, "task not found")
	case errors.Is(err, ErrNotCancelable):
		return rpcErr(a2awire.CodeTaskNotCancelable, path, "task has already finished")
	case errors.Is(err, ErrBusy):
		return rpcErr(a2awire.CodeInternalError, "", "too many tasks in flight; retry later")
	case errors.Is(err, ErrClosed):
		return rpcErr(a2awire.CodeInternalError, "", "server shutting down")
	}
	return rpcErr(a2awire.CodeInternalError, "", "internal error")
}

// wireError is the error member of a JSON-RPC response.
type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// wire writes e for a client of version: A2A 1.0 puts a
// google.rpc.ErrorInfo in the data (its metadata holds the path), 0.3
// an object {"path": ...}.
func (e *Error) wire(version string) wireError {
	w := wireError{Code: e.Code, Message: e.Error()}
	if version == a2awire.Version03 {
		if e.Path != "" {
			w.Data = map[string]string{"path": e.Path}
		}
		return w
	}
	info := map[string]any{"@type": a2awire.ErrorInfoType, "reason": a2awire.Reason(e.Code), "domain": a2awire.ErrorDomain}
	if e.Path != "" {
		info["metadata"] = map[string]string{"path": e.Path}
	}
	w.Data = []any{info}
	return w
}
