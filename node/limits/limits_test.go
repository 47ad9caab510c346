package limits_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/node/limits"
)

// A peer on loopback is charged to the loopback network only when asked;
// an unconnected or empty peer to none.
func TestNetworkOf(t *testing.T) {
	nw, err := p2pnet.New(context.Background(), 3, p2pnet.WithTransport(p2pnet.TCP), p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	if err := nw.Connect(context.Background(), 0, 1); err != nil {
		t.Fatal(err)
	}
	h := nw.Hosts()
	for _, tc := range []struct {
		charge bool
		want   string
	}{{false, ""}, {true, "127.0.0.0/24"}} {
		l, err := limits.New(prometheus.NewRegistry(), tc.charge, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.NetworkOf(h[0].Network(), h[1].ID()); got != tc.want {
			t.Errorf("chargeLoopback %v: connected peer's network %q, want %q", tc.charge, got, tc.want)
		}
		if got := l.NetworkOf(h[0].Network(), h[2].ID()); got != "" {
			t.Errorf("chargeLoopback %v: unconnected peer's network %q, want none", tc.charge, got)
		}
		if got := l.NetworkOf(h[0].Network(), ""); got != "" {
			t.Errorf("chargeLoopback %v: empty peer's network %q, want none", tc.charge, got)
		}
	}
}

// The guards charge a peer its own budget (Advertise: a burst of 5) and
// count their refusals on the registry they were given.
func TestRefusalsCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	l, err := limits.New(reg, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddr("192.0.2.7")
	burst := int(limits.Advertise.Peer.Burst)
	for i := range burst {
		if ok, _, _ := l.Advertise.Allow("peer-a", addr); !ok {
			t.Fatalf("advertise %d of a burst of %d refused", i+1, burst)
		}
	}
	if ok, wait, scope := l.Advertise.Allow("peer-a", addr); ok || wait <= 0 || scope != "peer" {
		t.Fatalf("advertise past the burst: allowed %v, retry after %v, scope %q", ok, wait, scope)
	}
	if ok, _, _ := l.Discover.Allow("peer-a", addr); !ok {
		t.Fatal("discover refused for an advertise budget spent")
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var refused float64
	for _, f := range families {
		if f.GetName() == "adpnode_ratelimit_refused_total" {
			for _, m := range f.Metric {
				refused += m.GetCounter().GetValue()
			}
		}
	}
	if refused != 1 {
		t.Fatalf("refusals counted: %v, want 1", refused)
	}
}
