package agenturi

import (
	"errors"
	"fmt"
)

var (
	// ErrSyntax is wrapped by every error about the syntax of a URI.
	ErrSyntax = errors.New("agenturi: invalid agent URI")
	// ErrScheme is wrapped, beside ErrSyntax, when the input is not an
	// agent:// or agent+<protocol>:// URI at all.
	ErrScheme = errors.New("agenturi: not an agent URI")
	// ErrTooLong is returned for input longer than MaxLength.
	ErrTooLong = errors.New("agenturi: URI too long")
)

// SyntaxError reports where a URI breaks the grammar. It wraps ErrSyntax and,
// for a wrong scheme, ErrScheme.
type SyntaxError struct {
	Component string // scheme, protocol, userinfo, host, port, did, path, query or fragment
	Offset    int    // byte offset of the problem in the input
	Reason    string
	scheme    bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("agenturi: %s at offset %d: %s", e.Component, e.Offset, e.Reason)
}

// Unwrap returns the sentinels the error stands for.
func (e *SyntaxError) Unwrap() []error {
	if e.scheme {
		return []error{ErrSyntax, ErrScheme}
	}
	return []error{ErrSyntax}
}
