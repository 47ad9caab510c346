package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// ErrRefused is wrapped by every refusal of the package.
var ErrRefused = errors.New("address refused")

// AddrError is a URL or an address the policy refuses. Reason says why,
// in words a user can act on.
type AddrError struct{ Reason string }

func (e *AddrError) Error() string { return ErrRefused.Error() + ": " + e.Reason }
func (e *AddrError) Unwrap() error { return ErrRefused }

func refuse(format string, a ...any) error { return &AddrError{Reason: fmt.Sprintf(format, a...)} }

// metadataAddrs are cloud instance metadata services outside the
// link-local range, refused like it (AWS's IPv6 one).
var metadataAddrs = []netip.Addr{netip.MustParseAddr("fd00:ec2::254")}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// CheckURL checks a URL before any connection: http or https, a host, no
// user information, and when the host is an IP literal, an address
// CheckAddr allows. Host names are checked when they resolve, on every
// connection (see Control).
func CheckURL(raw string, private bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, refuse("%q is not a URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, refuse("%q: only http and https endpoints are called", raw)
	case u.Host == "" || u.Hostname() == "":
		return nil, refuse("%q has no host", raw)
	case u.User != nil:
		return nil, refuse("%q carries user information", raw)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		if err := CheckAddr(a, private); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// CheckAddr refuses the addresses the node never connects to for a remote
// party: unspecified, multicast, link-local (169.254.0.0/16, fe80::/10,
// where cloud metadata services live) and the metadata addresses outside
// it; and, unless private is set, loopback and private ones (10/8,
// 172.16/12, 192.168/16, 100.64/10, fc00::/7).
func CheckAddr(a netip.Addr, private bool) error {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsMulticast(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), isMetadata(a):
		return refuse("%s is a link-local, metadata or otherwise unroutable address", a)
	case !private && (a.IsLoopback() || a.IsPrivate() || cgnat.Contains(a)):
		return refuse("%s is a loopback or private address (allowed only when the node is configured to call them)", a)
	}
	return nil
}

func isMetadata(a netip.Addr) bool {
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// Control is a net.Dialer Control hook: it checks the address a
// connection is about to be made to, after name resolution.
func Control(private bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			host, _, _ := net.SplitHostPort(address)
			return refuse("%q is not an IP address", host)
		}
		return CheckAddr(ap.Addr(), private)
	}
}
