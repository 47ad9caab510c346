package peering

import "errors"

var (
	// ErrBadOption reports an invalid option.
	ErrBadOption = errors.New("peering: bad option")
	// ErrClosed is returned by Start after Close.
	ErrClosed = errors.New("peering: closed")
)
