package netguard_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/netguard"
)

func TestCheck(t *testing.T) {
	const (
		ok      = iota // allowed either way
		private        // refused unless private addresses are allowed
		never          // always refused
	)
	for _, tc := range []struct {
		addr string
		want int
	}{
		// IPv4
		{"93.184.216.34", ok},
		{"8.8.8.8", ok},
		{"0.0.0.0", never},
		{"169.254.169.254", never}, // cloud metadata
		{"169.254.0.1", never},
		{"224.0.0.1", never},
		{"239.255.255.250", never},
		{"127.0.0.1", private},
		{"127.255.255.254", private},
		{"10.0.0.1", private},
		{"172.16.0.1", private},
		{"172.31.255.255", private},
		{"172.15.255.255", ok}, // just below 172.16/12
		{"172.32.0.0", ok},     // just above
		{"192.168.1.1", private},
		{"100.64.0.1", private}, // shared address space (CGNAT)
		{"100.127.255.255", private},
		{"100.63.255.255", ok},
		{"100.128.0.0", ok},
		// IPv6
		{"2606:4700::1111", ok},
		{"::", never},
		{"fe80::1", never},
		{"febf:ffff::1", never}, // last of fe80::/10
		{"fec0::1", ok},         // past it
		{"ff02::1", never},
		{"fd00:ec2::254", never}, // AWS metadata, inside fc00::/7
		{"fd00:ec2::253", private},
		{"::1", private},
		{"fc00::1", private},
		{"fdff:ffff::1", private},
		// IPv4-mapped IPv6: judged as the IPv4 address
		{"::ffff:169.254.169.254", never},
		{"::ffff:0.0.0.0", never},
		{"::ffff:127.0.0.1", private},
		{"::ffff:10.1.2.3", private},
		{"::ffff:93.184.216.34", ok},
	} {
		a := netip.MustParseAddr(tc.addr)
		for _, allow := range []bool{false, true} {
			err := netguard.Check(a, allow)
			refused := tc.want == never || tc.want == private && !allow
			if (err != nil) != refused {
				t.Errorf("Check(%s, allowPrivate %v) = %v, want refused %v", tc.addr, allow, err, refused)
				continue
			}
			if err == nil {
				continue
			}
			var ae *netguard.AddrError
			if !errors.Is(err, netguard.ErrRefused) || !errors.As(err, &ae) {
				t.Errorf("Check(%s) = %v, want an *AddrError wrapping ErrRefused", tc.addr, err)
				continue
			}
			if ae.Private != (tc.want == private) {
				t.Errorf("Check(%s).Private = %v", tc.addr, ae.Private)
			}
		}
	}
	if err := netguard.Check(netip.Addr{}, true); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("Check of the zero Addr = %v, want refused", err)
	}
}

// TestDialer: a connection to a loopback listener is refused before it
// is made, by name as by address, unless private addresses are allowed.
func TestDialer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, host := range []string{"127.0.0.1", "localhost"} {
		addr := net.JoinHostPort(host, port)
		_, err := netguard.NewDialer(time.Second, false).DialContext(ctx, "tcp4", addr)
		var ae *netguard.AddrError
		if !errors.As(err, &ae) || !ae.Private || !strings.Contains(err.Error(), "127.0.0.1 is a loopback or private address") {
			t.Errorf("dial %s without private addresses: %v, want a refused loopback address", addr, err)
		}
		c, err := netguard.NewDialer(time.Second, true).DialContext(ctx, "tcp4", addr)
		if err != nil {
			t.Errorf("dial %s with private addresses: %v", addr, err)
			continue
		}
		c.Close()
	}
	tr := netguard.NewTransport(time.Second, false)
	if tr.Proxy != nil {
		t.Error("NewTransport uses a proxy")
	}
	if _, err := tr.DialContext(ctx, "tcp", ln.Addr().String()); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("NewTransport dialling loopback: %v, want refused", err)
	}
}

// TestCheckURL: only http and https URLs with a host and no user
// information pass, and an IP literal host is judged by Check.
func TestCheckURL(t *testing.T) {
	for _, tt := range []struct {
		url     string
		private bool
		ok      bool
	}{
		{"https://agents.example.com/card.json", false, true},
		{"http://93.184.216.34:8080/a", false, true},
		{"http://127.0.0.1:9/a", true, true},
		{"http://127.0.0.1:9/a", false, false},
		{"http://[fd00:ec2::254]/latest", true, false},
		{"http://169.254.169.254/latest/meta-data", true, false},
		{"ftp://agents.example.com/card.json", false, false},
		{"https://user:pw@agents.example.com/", false, false},
		{"https:///card.json", false, false},
		{"%zz", false, false},
	} {
		_, err := netguard.CheckURL(tt.url, tt.private)
		if (err == nil) != tt.ok {
			t.Errorf("CheckURL(%q, private %v) = %v, want ok %v", tt.url, tt.private, err, tt.ok)
		}
		if err != nil && !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("CheckURL(%q): %v does not wrap ErrRefused", tt.url, err)
		}
	}
}
