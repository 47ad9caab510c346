package ratelimit_test

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/internal/ratelimit"
)

// sourceServer is a SourceListener on loopback whose accepted connections
// arrive on a channel, keyed by the client's address.
type sourceServer struct {
	l        *ratelimit.SourceListener
	accepted chan net.Conn
}

func newSourceServer(t *testing.T, perIP, perNet int, skipLoopback bool, m *ratelimit.Metrics) *sourceServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sourceServer{l: ratelimit.LimitSources(ln, perIP, perNet, skipLoopback, m), accepted: make(chan net.Conn, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := s.l.Accept()
			if err != nil {
				return
			}
			s.accepted <- c
		}
	}()
	t.Cleanup(func() {
		s.l.Close()
		<-done
		close(s.accepted)
		for c := range s.accepted {
			c.Close()
		}
	})
	return s
}

// dial connects from the loopback address from and reports whether the
// server kept the connection (it is returned, with the server's end) or
// closed it at once.
func (s *sourceServer) dial(t *testing.T, from string) (client, server net.Conn) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", s.l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	closed := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		closed <- err
	}()
	for {
		select {
		case sc := <-s.accepted:
			if sc.RemoteAddr().String() == c.LocalAddr().String() {
				return c, sc
			}
			t.Fatalf("accepted %s, dialled from %s", sc.RemoteAddr(), c.LocalAddr())
		case err := <-closed:
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				var op *net.OpError
				if !errors.As(err, &op) { // a reset is a close too
					t.Fatalf("read on %s: %v", from, err)
				}
			}
			return nil, nil
		}
	}
}

// TestSourceListener: past the per-IP cap and past the per-network cap a
// connection is closed as accepted and counted; closing a kept one frees
// its slot; a loopback network is not capped under skipLoopback.
func TestSourceListener(t *testing.T) {
	m, err := ratelimit.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s := newSourceServer(t, 2, 3, false, m)
	_, a1 := s.dial(t, "127.0.0.1")
	_, a2 := s.dial(t, "127.0.0.1")
	if a1 == nil || a2 == nil {
		t.Fatal("the first two connections from 127.0.0.1 were closed")
	}
	if _, a3 := s.dial(t, "127.0.0.1"); a3 != nil {
		t.Fatal("a third connection from 127.0.0.1 was kept; the IP cap is 2")
	}
	if _, b1 := s.dial(t, "127.0.0.2"); b1 == nil {
		t.Fatal("127.0.0.2's first connection was closed")
	}
	if _, b2 := s.dial(t, "127.0.0.2"); b2 != nil {
		t.Fatal("a fourth connection from 127.0.0.0/24 was kept; the network cap is 3")
	}
	if ip, nw := s.l.Open(netip.MustParseAddr("127.0.0.1")); ip != 2 || nw != 3 {
		t.Fatalf("open: %d from the IP, %d from the network; want 2 and 3", ip, nw)
	}
	if got := counterValue(t, m.Counter(ratelimit.GuardPublicConns, ratelimit.ScopePeer)); got != 1 {
		t.Errorf("IP refusals counted: %v, want 1", got)
	}
	if got := counterValue(t, m.Counter(ratelimit.GuardPublicConns, ratelimit.ScopeNetwork)); got != 1 {
		t.Errorf("network refusals counted: %v, want 1", got)
	}
	a1.Close()
	a1.Close() // a second close frees nothing more
	if ip, nw := s.l.Open(netip.MustParseAddr("127.0.0.1")); ip != 1 || nw != 2 {
		t.Fatalf("after a close: %d from the IP, %d from the network; want 1 and 2", ip, nw)
	}
	if _, a4 := s.dial(t, "127.0.0.1"); a4 == nil {
		t.Fatal("a connection after a close was refused")
	}

	loose := newSourceServer(t, 1, 1, true, nil)
	if _, c := loose.dial(t, "127.0.0.1"); c == nil {
		t.Fatal("loose: first connection closed")
	}
	if _, c := loose.dial(t, "127.0.0.2"); c == nil {
		t.Fatal("loose: a loopback network was capped under skipLoopback")
	}
	if _, c := loose.dial(t, "127.0.0.2"); c != nil {
		t.Fatal("loose: the IP cap of 1 did not hold")
	}
}

// TestSourceListenerExempt: connections from an exempt address pass the
// caps uncounted.
func TestSourceListenerExempt(t *testing.T) {
	s := newSourceServer(t, 1, 1, false, nil)
	s.l.Exempt(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") })
	for range 3 {
		if _, c := s.dial(t, "127.0.0.1"); c == nil {
			t.Fatal("a connection from the exempt address was closed")
		}
	}
	if ip, nw := s.l.Open(netip.MustParseAddr("127.0.0.1")); ip != 0 || nw != 0 {
		t.Fatalf("exempt connections counted: %d, %d", ip, nw)
	}
	if _, c := s.dial(t, "127.0.0.2"); c == nil {
		t.Fatal("another address's first connection was closed")
	}
	if _, c := s.dial(t, "127.0.0.2"); c != nil {
		t.Fatal("the cap of 1 did not hold for an address not exempt")
	}
}
