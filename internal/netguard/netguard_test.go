package netguard_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/adpnode/adpnode/internal/netguard"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url     string
		private bool
		ok      bool
	}{
		{"https://example.com/a.json", false, true},
		{"http://203.0.113.7/", false, true},
		{"http://127.0.0.1:8080/", true, true},
		{"ftp://example.com/", true, false},
		{"http:///nohost", true, false},
		{"http://user:pw@example.com/", true, false},
		{"http://169.254.169.254/latest/meta-data", true, false},
		{"http://[fe80::1]/", true, false},
		{"http://[fd00:ec2::254]/", true, false},
		{"http://0.0.0.0/", true, false},
		{"http://224.0.0.1/", true, false},
		{"http://127.0.0.1/", false, false},
		{"http://10.1.2.3/", false, false},
		{"http://100.64.0.1/", false, false},
		{"http://[::1]/", false, false},
		{"://x", true, false},
	} {
		_, err := netguard.CheckURL(tc.url, tc.private)
		if tc.ok != (err == nil) {
			t.Errorf("%s (private %v): %v, want ok %v", tc.url, tc.private, err, tc.ok)
		}
		var ae *netguard.AddrError
		if err != nil && (!errors.Is(err, netguard.ErrRefused) || !errors.As(err, &ae) || ae.Reason == "") {
			t.Errorf("%s: %v is not an AddrError with a reason", tc.url, err)
		}
	}
}

func TestControl(t *testing.T) {
	c := netguard.Control(false)
	if err := c("tcp", "169.254.169.254:80", nil); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("metadata address: %v", err)
	}
	if err := c("tcp", "not-an-ip:80", nil); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("host name: %v", err)
	}
	if err := c("tcp", "203.0.113.9:443", nil); err != nil {
		t.Errorf("public address: %v", err)
	}
	if err := netguard.CheckAddr(netip.MustParseAddr("::ffff:10.0.0.1"), true); err != nil {
		t.Errorf("mapped private address, private allowed: %v", err)
	}
}
