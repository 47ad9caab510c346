package mcpserver

import "errors"

var (
	// ErrBadArgument is a tool argument the server refuses before calling
	// the node; the tool error names the argument.
	ErrBadArgument = errors.New("mcpserver: bad argument")
	// ErrReplyTooLarge ends an invoke_agent whose streamed reply passed
	// its bound (WithMaxStreamedReply).
	ErrReplyTooLarge = errors.New("mcpserver: streamed reply too large")
)
