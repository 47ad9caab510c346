package aicatalog

import (
	"errors"
	"fmt"
)

// ErrInvalidArgument is wrapped by every refusal of a search request.
var ErrInvalidArgument = errors.New("aicatalog: invalid argument")

// ErrTooLarge is a request body above MaxBodyBytes.
var ErrTooLarge = errors.New("aicatalog: request body too large")

// RequestError is a refused search request: Path is the JSON Pointer of
// the value at fault ("" for the whole body).
type RequestError struct {
	Path string
	Msg  string
}

func (e *RequestError) Error() string {
	if e.Path == "" {
		return ErrInvalidArgument.Error() + ": " + e.Msg
	}
	return fmt.Sprintf("%s at %s: %s", ErrInvalidArgument, e.Path, e.Msg)
}

func (e *RequestError) Unwrap() error { return ErrInvalidArgument }

func invalid(path, format string, a ...any) error {
	return &RequestError{Path: path, Msg: fmt.Sprintf(format, a...)}
}
