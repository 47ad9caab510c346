package nodeapi

import "errors"

var (
	// ErrClosed is returned by calls on a closed node.
	ErrClosed = errors.New("node: closed")
	// ErrUnreachable wraps a failure to reach a remote agent.
	ErrUnreachable = errors.New("node: agent unreachable")
	// ErrSelf means a call named the node's own agent where only a remote
	// agent is allowed (invoke, rate, advertise, import).
	ErrSelf = errors.New("node: not allowed on the node's own agent")
	// ErrInvalidArgument means an argument is out of its bounds.
	ErrInvalidArgument = errors.New("node: invalid argument")
	// ErrStale means a card is older than the one held for its agent: a
	// stale update never replaces a newer record (discovery profile 9;
	// error code stale_metadata).
	ErrStale = errors.New("node: card older than the one held")
	// ErrConflict means a card's id is not this node's agent id.
	ErrConflict = errors.New("node: card id conflicts with the node's agent id")
)

// ArgumentError is a refused argument: Err is ErrSelf,
// ErrInvalidArgument or ErrConflict, Path the JSON Pointer of the
// argument in a request body ("/agent", "/stars") and Reason what is wrong
// with it, in words fit for the caller.
type ArgumentError struct {
	Path   string
	Reason string
	Err    error
}

// Argument returns an *ArgumentError.
func Argument(err error, path, reason string) *ArgumentError {
	return &ArgumentError{Path: path, Reason: reason, Err: err}
}

func (e *ArgumentError) Error() string { return e.Reason }

func (e *ArgumentError) Unwrap() error { return e.Err }
