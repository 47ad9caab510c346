package a2aclient

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"

	"github.com/adpnode/adpnode/internal/netguard"
)

// checkURL checks an endpoint URL before any connection: http or https,
// a host, no user information, and when the host is an IP literal, an
// address netguard.Check allows. Host names are checked when they
// resolve, on every connection (netguard.NewDialer), so a name cannot
// point the client at a refused address.
func checkURL(raw string, private bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %q is not a URL", ErrRefusedURL, raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: %q: only http and https endpoints are called", ErrRefusedURL, raw)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%w: %q has no host", ErrRefusedURL, raw)
	case u.User != nil:
		return nil, fmt.Errorf("%w: %q carries user information", ErrRefusedURL, raw)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		var ae *netguard.AddrError
		if errors.As(netguard.Check(a, private), &ae) {
			return nil, refused(ae)
		}
	}
	return u, nil
}

// refused is the error of an address the guard refuses: an
// ErrRefusedURL followed by the guard's reason alone, so that it reads
// without the layers of the HTTP client around it.
func refused(ae *netguard.AddrError) error { return fmt.Errorf("%w: %w", ErrRefusedURL, ae) }
