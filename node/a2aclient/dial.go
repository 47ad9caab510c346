package a2aclient

import (
	"errors"
	"net/url"
	"syscall"

	"github.com/adpnode/adpnode/internal/netguard"
)

// checkURL checks an endpoint URL before any connection with the node's
// outbound address policy (internal/netguard: http or https, a host, no
// user information, an allowed address when the host is an IP literal).
// Host names are checked when they resolve, on every connection (see
// control), so a name cannot point the client at a refused address.
func checkURL(raw string, private bool) (*url.URL, error) {
	u, err := netguard.CheckURL(raw, private)
	return u, refused(err)
}

// addrError is an address the client refuses to connect to. It is an
// ErrRefusedURL; the request's error is replaced by it, so that the
// reason reads without the layers of the HTTP client around it.
type addrError struct{ reason string }

func (e *addrError) Error() string { return ErrRefusedURL.Error() + ": " + e.reason }
func (e *addrError) Unwrap() error { return ErrRefusedURL }

// refused turns a netguard refusal into the client's addrError.
func refused(err error) error {
	var ae *netguard.AddrError
	if errors.As(err, &ae) {
		return &addrError{ae.Reason}
	}
	return err
}

// control is the dialer's Control hook: it checks the address a
// connection is about to be made to, after name resolution.
func control(private bool) func(network, address string, _ syscall.RawConn) error {
	check := netguard.Control(private)
	return func(network, address string, c syscall.RawConn) error {
		return refused(check(network, address, c))
	}
}
