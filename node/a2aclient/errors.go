package a2aclient

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/adpnode/adpnode/node/a2awire"
)

var (
	// ErrUnreachable wraps a failure to reach the endpoint: the connection
	// was refused, failed or was lost, or a gateway in front of the server
	// answered that it is down (HTTP 502, 503, 504). Another endpoint of
	// the agent may still work.
	ErrUnreachable = errors.New("a2a: endpoint not reachable")
	// ErrBadReply means the server answered something that is not an A2A
	// JSON-RPC reply to the request (wrong JSON, wrong id, wrong shape).
	ErrBadReply = errors.New("a2a: malformed reply")
	// ErrTooLarge means a reply, or an event of a stream, passed its bound
	// (DefaultMaxReply, MaxEvent). It is also an ErrBadReply.
	ErrTooLarge = errors.New("a2a: reply too large")
	// ErrRefusedURL means the endpoint's URL is one the client does not
	// call: not http or https, a link-local or cloud metadata address, or
	// a loopback or private address without WithPrivateAddresses.
	ErrRefusedURL = errors.New("a2a: endpoint address refused")
)

// RemoteError is a JSON-RPC error object the server answered.
type RemoteError struct {
	Code    int
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("the A2A endpoint answered error %d: %s", e.Code, e.Message)
}

// TaskError is a task that ended without a result: failed, rejected,
// canceled, or waiting for input or authentication the call cannot give.
type TaskError struct {
	// State is the task's final state in the 1.0 spelling (a2awire.StateFailed...).
	State string
	// Message is the text of the task's status message, if any.
	Message string
}

func (e *TaskError) Error() string {
	s := "the A2A agent's task ended " + stateWord(e.State)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// stateWord is a state as a word for messages: "failed", "input
// required".
func stateWord(state string) string {
	return strings.ReplaceAll(a2awire.State03(state), "-", " ")
}

// badReply returns an ErrBadReply with a reason.
func badReply(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadReply, fmt.Sprintf(format, args...))
}

// clip returns s cut to MaxErrorText octets at a rune boundary, with
// invalid UTF-8 replaced.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxErrorText {
		return s
	}
	cut := MaxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
