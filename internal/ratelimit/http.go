package ratelimit

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// SourceIP is the IP an HTTP request came from: the TCP peer. Headers
// such as X-Forwarded-For are the client's to write, so they are not
// read. The zero Addr when RemoteAddr is not an address and port.
func SourceIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// SetRetryAfter sets the Retry-After header of a refusal to the whole
// seconds until a retry can pass, at least 1.
func SetRetryAfter(h http.Header, wait time.Duration) {
	h.Set("Retry-After", strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1)))
}

// ForwardedFor returns the client a trusted reverse proxy names in r's
// X-Forwarded-For headers: read from the right (each proxy appends the
// address it got the request from), the first address that trusted does
// not report. Addresses left of it are the client's own claims and are
// never read. ok is false when the headers name no such address or an
// entry before it is not an IP address (with or without a port):
// then the request is the proxy's own.
func ForwardedFor(r *http.Request, trusted func(netip.Addr) bool) (client netip.Addr, ok bool) {
	values := r.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		entries := strings.Split(values[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			e := strings.TrimSpace(entries[j])
			a, err := netip.ParseAddr(e)
			if err != nil {
				ap, err := netip.ParseAddrPort(e)
				if err != nil {
					return netip.Addr{}, false
				}
				a = ap.Addr()
			}
			if a = a.Unmap(); !trusted(a) {
				return a, true
			}
		}
	}
	return netip.Addr{}, false
}
