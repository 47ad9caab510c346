package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

// clock is a manual clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_700_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestLimiterBucket(t *testing.T) {
	clk := newClock()
	l := ratelimit.New(ratelimit.Rate{PerSecond: 2, Burst: 3}, ratelimit.WithClock(clk.Now))
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("past the burst: ok=%v retry after %s, want refused for 500ms", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key shares a's bucket")
	}
	clk.Advance(499 * time.Millisecond)
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a token appeared early")
	}
	clk.Advance(time.Millisecond)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("no token after 500ms at 2/s")
	}
	clk.Advance(time.Hour)
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("refill beyond the burst is capped, but request %d was refused", i)
		}
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("the bucket refilled beyond its burst")
	}
}

func TestLimiterRefund(t *testing.T) {
	clk := newClock()
	l := ratelimit.New(ratelimit.Rate{PerSecond: 1, Burst: 1}, ratelimit.WithClock(clk.Now))
	l.Allow("a")
	l.Refund("a")
	l.Refund("a") // never beyond the burst
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refund lost")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("two refunds gave two tokens")
	}
}

func TestLimiterBoundedTable(t *testing.T) {
	clk := newClock()
	l := ratelimit.New(ratelimit.Rate{PerSecond: 1, Burst: 1}, ratelimit.WithClock(clk.Now), ratelimit.WithMaxKeys(100))
	l.Allow("old")
	for i := range 1000 {
		l.Allow(fmt.Sprint("k", i))
		if i%100 == 0 {
			l.Allow("hot") // recently used keys stay
		}
	}
	if n := l.Len(); n != 100 {
		t.Fatalf("table holds %d keys, want 100", n)
	}
	if l.Evicted() < 1002-100 {
		t.Fatalf("evicted %d, want at least %d", l.Evicted(), 1002-100)
	}
	if ok, _ := l.Allow("hot"); ok {
		t.Fatal("a recently used key was evicted and got a fresh bucket")
	}
}

func TestInvalidRateFailsClosed(t *testing.T) {
	l := ratelimit.New(ratelimit.Rate{})
	if ok, wait := l.Allow("a"); ok || wait <= 0 {
		t.Fatalf("zero rate: ok=%v wait=%s", ok, wait)
	}
}

func TestGuardSharesANetwork(t *testing.T) {
	clk := newClock()
	reg := prometheus.NewRegistry()
	m, err := ratelimit.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	g := ratelimit.NewGuard(ratelimit.GuardAdvertise, ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 1, Burst: 2},
		Network: ratelimit.Rate{PerSecond: 1, Burst: 5},
	}, m, clk.Now)
	attacker := netip.MustParseAddr("203.0.113.7")
	neighbour := netip.MustParseAddr("203.0.113.200") // same /24
	honest := netip.MustParseAddr("198.51.100.1")

	// One identity: its own bucket refuses first.
	g.Allow("p0", attacker)
	g.Allow("p0", attacker)
	if ok, _, scope := g.Allow("p0", attacker); ok || scope != ratelimit.ScopePeer {
		t.Fatalf("third request of one peer: ok=%v scope=%q", ok, scope)
	}
	// Fresh identities from the same /24 share its 5 tokens (2 used).
	allowed := 0
	for i := range 100 {
		if ok, _, _ := g.Allow(fmt.Sprint("fresh", i), neighbour); ok {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("fresh identities from one /24 got %d requests, want 3", allowed)
	}
	if ok, _, _ := g.Allow("honest", honest); !ok {
		t.Fatal("a peer from another network was refused")
	}
	// Relayed or in-memory connections are charged to the peer only.
	if ok, _, _ := g.Allow("relayed", netip.Addr{}); !ok {
		t.Fatal("a request without an address was refused")
	}
	if got := counterValue(t, m.Counter(ratelimit.GuardAdvertise, ratelimit.ScopeNetwork)); got != 97 {
		t.Fatalf("network refusals counted %v, want 97", got)
	}
	if got := counterValue(t, m.Counter(ratelimit.GuardAdvertise, ratelimit.ScopePeer)); got != 1 {
		t.Fatalf("peer refusals counted %v, want 1", got)
	}
	// A refused network request gave its peer token back.
	clk.Advance(5 * time.Second)
	if ok, _, _ := g.Allow("fresh99", neighbour); !ok {
		t.Fatal("after refill the network still refuses")
	}
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 1 || len(mfs[0].GetMetric()) != 2 {
		t.Fatalf("gathered %v (%v), want one family of 2 series: labels come from closed sets", mfs, err)
	}
}

func TestNetworkKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":            "203.0.113.0/24",
		"::ffff:203.0.113.7":     "203.0.113.0/24",
		"2001:db8:abcd:12::1":    "2001:db8:abcd::/48",
		"2001:db8:abcd:ffff::99": "2001:db8:abcd::/48",
	} {
		if got := ratelimit.NetworkKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("NetworkKey(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestAddrOf(t *testing.T) {
	for in, want := range map[string]string{
		"/ip4/203.0.113.7/tcp/4001":         "203.0.113.7",
		"/ip6/2001:db8::1/udp/4001/quic-v1": "2001:db8::1",
		"/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN/p2p-circuit": "invalid IP",
		"/dns4/example.com/tcp/1": "invalid IP",
	} {
		if got := ratelimit.AddrOf(ma.StringCast(in)).String(); got != want {
			t.Errorf("AddrOf(%s) = %s, want %s", in, got, want)
		}
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func TestHTTPHelpers(t *testing.T) {
	for _, tc := range []struct {
		remote string
		want   string
	}{
		{"192.0.2.7:4100", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:4100", "192.0.2.7"},
		{"[2001:db8::1]:80", "2001:db8::1"},
		{"not an address", "invalid IP"},
	} {
		r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{"X-Forwarded-For": {"203.0.113.9"}}}
		if got := ratelimit.SourceIP(r).String(); got != tc.want {
			t.Errorf("SourceIP(%q) = %s, want %s", tc.remote, got, tc.want)
		}
	}
	for _, tc := range []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {10 * time.Millisecond, "1"}, {time.Second, "1"}, {1001 * time.Millisecond, "2"}, {90 * time.Second, "90"}} {
		h := http.Header{}
		ratelimit.SetRetryAfter(h, tc.wait)
		if got := h.Get("Retry-After"); got != tc.want {
			t.Errorf("SetRetryAfter(%v) = %q, want %q", tc.wait, got, tc.want)
		}
	}
}
