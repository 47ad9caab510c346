package p2phost

import (
	"net"
	"testing"

	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

func cidr(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSubtract: the subnet leaves its range and nothing else does.
func TestSubtract(t *testing.T) {
	ranges := []*net.IPNet{cidr(t, "10.0.0.0/8"), cidr(t, "172.16.0.0/12"), cidr(t, "192.168.0.0/16")}
	out, err := subtract(ranges, cidr(t, "172.30.0.0/24"))
	if err != nil {
		t.Fatal(err)
	}
	in := func(ip string) bool {
		for _, r := range out {
			if r.Contains(net.ParseIP(ip)) {
				return true
			}
		}
		return false
	}
	for ip, want := range map[string]bool{
		"172.30.0.1": false, "172.30.0.255": false, // the subnet: now public
		"172.30.1.0": true, "172.29.255.255": true, "172.16.0.1": true, "172.31.255.255": true,
		"10.1.2.3": true, "192.168.1.1": true, // other ranges untouched
		"172.32.0.1": false, "8.8.8.8": false, // never private
	} {
		if got := in(ip); got != want {
			t.Errorf("%s private = %v, want %v", ip, got, want)
		}
	}
	for _, bad := range []string{"8.8.8.0/24", "172.0.0.0/8"} {
		if _, err := subtract(ranges, cidr(t, bad)); err == nil {
			t.Errorf("subtract %s: no error", bad)
		}
	}
}

// TestTreatAsPublic: the subnet counts as public in the whole process and
// a second call with it changes nothing.
func TestTreatAsPublic(t *testing.T) {
	saved := manet.Private4
	t.Cleanup(func() { manet.Private4 = saved; delete(treated, "10.250.0.0/16") })
	in, out := ma.StringCast("/ip4/10.250.1.2/tcp/1"), ma.StringCast("/ip4/10.251.1.2/tcp/1")
	if manet.IsPublicAddr(in) {
		t.Fatalf("%s public before", in)
	}
	for range 2 {
		if err := TreatAsPublic(cidr(t, "10.250.0.0/16")); err != nil {
			t.Fatal(err)
		}
		if !manet.IsPublicAddr(in) || manet.IsPublicAddr(out) {
			t.Fatalf("public: %s %v, %s %v; want true, false", in, manet.IsPublicAddr(in), out, manet.IsPublicAddr(out))
		}
	}
}
