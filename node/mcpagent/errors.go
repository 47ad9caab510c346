package mcpagent

import "errors"

var (
	// ErrNoServer is returned by New without a command, URL or transport,
	// or with more than one.
	ErrNoServer = errors.New("mcpagent: need exactly one of a command, a URL or a transport")
	// ErrBadCommand reports a command line that cannot be split into words.
	ErrBadCommand = errors.New("mcpagent: bad command line")
	// ErrClosed is returned by Start after Close.
	ErrClosed = errors.New("mcpagent: closed")
	// ErrStarted is returned by a second Start.
	ErrStarted = errors.New("mcpagent: already started")
)
