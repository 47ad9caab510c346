package mcpserver

import "errors"

// ErrBadArgument is a tool argument the server refuses before calling the
// node; the tool error names the argument.
var ErrBadArgument = errors.New("mcpserver: bad argument")
