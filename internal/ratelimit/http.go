package ratelimit

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
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
