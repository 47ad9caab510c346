package p2phost

import "errors"

// ErrNotPrivate: TreatAsPublic was given a subnet that is not an IPv4
// subnet inside one of libp2p's private ranges.
var ErrNotPrivate = errors.New("not inside a private IPv4 range")
