package a2aclient

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// metadataAddrs are cloud instance metadata services outside the
// link-local range, refused like it (AWS's IPv6 one).
var metadataAddrs = []netip.Addr{netip.MustParseAddr("fd00:ec2::254")}

// checkURL checks an endpoint URL before any connection: http or https,
// a host, no user information, and when the host is an IP literal, an
// address checkAddr allows. Host names are checked when they resolve, on
// every connection (see control), so a name cannot point the client at a
// refused address.
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
		if err := checkAddr(a, private); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// checkAddr refuses the addresses the client never connects to:
// unspecified, multicast, link-local (169.254.0.0/16, fe80::/10, where
// cloud metadata services live) and metadataAddrs; and, unless private is
// set, loopback and private ones (10/8, 172.16/12, 192.168/16, 100.64/10,
// fc00::/7).
func checkAddr(a netip.Addr, private bool) error {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsMulticast(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), isMetadata(a):
		return &addrError{fmt.Sprintf("%s is a link-local, metadata or otherwise unroutable address", a)}
	case !private && (a.IsLoopback() || a.IsPrivate() || cgnat.Contains(a)):
		return &addrError{fmt.Sprintf("%s is a loopback or private address (allowed only when the node is configured to call them)", a)}
	}
	return nil
}

// addrError is an address the client refuses to connect to. It is an
// ErrRefusedURL; the request's error is replaced by it, so that the
// reason reads without the layers of the HTTP client around it.
type addrError struct{ reason string }

func (e *addrError) Error() string { return ErrRefusedURL.Error() + ": " + e.reason }
func (e *addrError) Unwrap() error { return ErrRefusedURL }

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func isMetadata(a netip.Addr) bool {
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// control is the dialer's Control hook: it checks the address a
// connection is about to be made to, after name resolution.
func control(private bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			host, _, _ := net.SplitHostPort(address)
			return fmt.Errorf("%w: %q is not an IP address", ErrRefusedURL, host)
		}
		return checkAddr(ap.Addr(), private)
	}
}
