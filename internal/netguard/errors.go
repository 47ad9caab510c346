package netguard

import (
	"errors"
	"net/netip"
)

// ErrRefused is wrapped by every refusal of an address (*AddrError).
var ErrRefused = errors.New("netguard: address refused")

// AddrError is an address the policy refuses. Its text is the reason
// alone ("10.0.0.1 is a loopback or private address ..."), so that a
// caller can put it after its own sentinel error.
type AddrError struct {
	// Addr is the refused address (invalid when the dialed address was
	// not an IP address).
	Addr netip.Addr
	// Private is set when the address is refused only because it is a
	// loopback or private one.
	Private bool
	reason  string
}

func (e *AddrError) Error() string { return e.reason }
func (e *AddrError) Unwrap() error { return ErrRefused }
