package netguard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// metadataAddrs are cloud instance metadata services outside the
// link-local range, refused like it (AWS's IPv6 one).
var metadataAddrs = []netip.Addr{netip.MustParseAddr("fd00:ec2::254")}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Check returns nil when a connection to a is allowed and an *AddrError
// otherwise: unspecified, multicast, link-local and metadata addresses
// are always refused; loopback and private ones unless allowPrivate is
// set. An IPv4-mapped IPv6 address is judged as its IPv4 address.
func Check(a netip.Addr, allowPrivate bool) error {
	a = a.Unmap()
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsMulticast(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), isMetadata(a):
		return &AddrError{Addr: a, reason: fmt.Sprintf("%s is a link-local, metadata or otherwise unroutable address", a)}
	case !allowPrivate && (a.IsLoopback() || a.IsPrivate() || cgnat.Contains(a)):
		return &AddrError{Addr: a, Private: true, reason: fmt.Sprintf("%s is a loopback or private address (allowed only when the node is configured to call them)", a)}
	}
	return nil
}

// CheckURL checks a URL a peer or client names before any connection:
// http or https, a host, no user information, and when the host is an IP
// literal, an address Check allows. Host names are checked when they
// resolve, on every connection (Control, NewDialer), so a name cannot
// point a client at a refused address. Refusals are *AddrError.
func CheckURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, &AddrError{reason: fmt.Sprintf("%q is not a URL", raw)}
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, &AddrError{reason: fmt.Sprintf("%q: only http and https endpoints are called", raw)}
	case u.Host == "" || u.Hostname() == "":
		return nil, &AddrError{reason: fmt.Sprintf("%q has no host", raw)}
	case u.User != nil:
		return nil, &AddrError{reason: fmt.Sprintf("%q carries user information", raw)}
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		if err := Check(a, allowPrivate); err != nil {
			return nil, err
		}
	}
	return u, nil
}

func isMetadata(a netip.Addr) bool {
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// Control is a net.Dialer Control hook: it applies Check to the address
// a connection is about to be made to, after name resolution. An address
// that is not an IP address and port is refused.
func Control(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			host, _, _ := net.SplitHostPort(address)
			return &AddrError{reason: fmt.Sprintf("%q is not an IP address", host)}
		}
		return Check(ap.Addr(), allowPrivate)
	}
}

// NewTransport returns an HTTP transport that connects only to the
// addresses Check allows, through NewDialer(dialTimeout, allowPrivate),
// and uses no proxy (whose address would be checked instead of the
// target's). dialTimeout also bounds TLS handshakes; response headers
// are bounded to MaxResponseHeader octets. Callers may tune its
// connection pool; they must not set Proxy or DialContext.
func NewTransport(dialTimeout time.Duration, allowPrivate bool) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            NewDialer(dialTimeout, allowPrivate).DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    dialTimeout,
		MaxResponseHeaderBytes: MaxResponseHeader,
		IdleConnTimeout:        90 * time.Second,
	}
}

// MaxResponseHeader bounds the response headers NewTransport reads.
const MaxResponseHeader = 64 << 10

// NewDialer returns a dialer that connects only to the addresses Check
// allows, with the given connection timeout (0: none but the context's).
func NewDialer(timeout time.Duration, allowPrivate bool) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Control: Control(allowPrivate)}
}
