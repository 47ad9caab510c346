package ratelimit_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

// TestForwardedFor: the client is the rightmost address the trusted
// proxies did not write; what a client wrote itself is never taken.
func TestForwardedFor(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	trusted := func(a netip.Addr) bool {
		for _, p := range proxies {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name    string
		headers []string
		want    string // "" = none
	}{
		{"none", nil, ""},
		{"one client", []string{"203.0.113.5"}, "203.0.113.5"},
		{"spoofed on the left", []string{"1.2.3.4, 203.0.113.5"}, "203.0.113.5"},
		{"through two proxies", []string{"198.51.100.9, 203.0.113.5, 10.1.2.3"}, "203.0.113.5"},
		{"split over headers", []string{"1.2.3.4", "203.0.113.5, 10.0.0.1"}, "203.0.113.5"},
		{"with ports", []string{"[2001:db8::7]:4711, 10.0.0.1:80"}, "2001:db8::7"},
		{"mapped IPv4", []string{"::ffff:203.0.113.8"}, "203.0.113.8"},
		{"only proxies", []string{"10.0.0.1, ::1"}, ""},
		{"garbage before the client", []string{"203.0.113.5, unknown"}, ""},
		{"garbage left of the client", []string{"<script>, 203.0.113.5"}, "203.0.113.5"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("X-Forwarded-For", h)
		}
		got, ok := ratelimit.ForwardedFor(r, trusted)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: got %v, want none", tc.name, got)
			}
			continue
		}
		if !ok || got != netip.MustParseAddr(tc.want) {
			t.Errorf("%s: got %v (%v), want %s", tc.name, got, ok, tc.want)
		}
	}
}
