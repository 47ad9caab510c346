package p2pnet

import "errors"

var (
	// ErrClosed is returned by calls on a closed Network.
	ErrClosed = errors.New("p2pnet: network closed")
	// ErrBadIndex is returned for a host index outside the network.
	ErrBadIndex = errors.New("p2pnet: host index out of range")
	// ErrBadConfig is returned by New for an invalid option.
	ErrBadConfig = errors.New("p2pnet: invalid configuration")
)
