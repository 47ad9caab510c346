package ratelimit_test

import (
	"testing"

	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

type connAddrs struct{ remote ma.Multiaddr }

func (c connAddrs) LocalMultiaddr() ma.Multiaddr  { return ma.StringCast("/ip4/127.0.0.1/tcp/1") }
func (c connAddrs) RemoteMultiaddr() ma.Multiaddr { return c.remote }

// TestConnGate: inbound connections are charged to their /24 at accept;
// past the burst they are refused and counted, another network still
// gets in, and loopback is free when skipped.
func TestConnGate(t *testing.T) {
	m, err := ratelimit.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	rate := ratelimit.Rate{PerSecond: 0.001, Burst: 3}
	g := ratelimit.NewConnGate(rate, true, m, nil)
	from := func(s string) connAddrs { return connAddrs{ma.StringCast(s)} }
	for i, tc := range []struct {
		addr string
		want bool
	}{
		{"/ip4/203.0.113.1/tcp/4001", true},
		{"/ip4/203.0.113.2/tcp/4001", true},
		{"/ip4/203.0.113.3/tcp/4001", true},
		{"/ip4/203.0.113.4/tcp/4001", false}, // same /24, burst spent
		{"/ip4/198.51.100.1/tcp/4001", true},
		{"/ip4/127.0.0.1/tcp/4001", true},
		{"/ip4/127.0.0.1/tcp/4001", true},
		{"/ip4/127.0.0.1/tcp/4001", true},
		{"/ip4/127.0.0.1/tcp/4001", true}, // loopback skipped
	} {
		if got := g.InterceptAccept(from(tc.addr)); got != tc.want {
			t.Errorf("%d: accept from %s = %v, want %v", i, tc.addr, got, tc.want)
		}
	}
	var out dto.Metric
	if err := m.Counter(ratelimit.GuardConnect, ratelimit.ScopeNetwork).Write(&out); err != nil {
		t.Fatal(err)
	}
	if got := out.GetCounter().GetValue(); got != 1 {
		t.Fatalf("refusals counted %v, want 1", got)
	}
	if !g.InterceptPeerDial("") || !g.InterceptSecured(0, "", from("/ip4/203.0.113.9/tcp/1")) {
		t.Fatal("the gate decided more than accepts")
	}
}
