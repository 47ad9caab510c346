package ratelimit

import (
	"net"
	"net/netip"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// GuardPublicConns names the public server's caps on the connections one
// source keeps open, in the "guard" label.
const GuardPublicConns = "public_conns"

// SourceListener is a net.Listener that keeps at most a number of
// connections open from one source IP address and from one source network
// (IPv4 /24, IPv6 /48). A connection past either cap is closed as it is
// accepted, before anything is read from it, and Accept goes on to the
// next; the source's own connections are untouched. Together with a cap on
// all connections (netutil.LimitListener, inside this one) this keeps one
// source from holding every slot. Safe for concurrent use.
type SourceListener struct {
	net.Listener
	perIP, perNet         int
	skipLoopback          bool
	exempt                func(netip.Addr) bool // nil: none; guarded by mu
	refusedIP, refusedNet prometheus.Counter    // nil: not counted
	mu                    sync.Mutex
	open                  map[string]int // "i"+IP and "n"+network: connections open
}

// LimitSources wraps ln: at most perIP connections open from one IP
// address and perNetwork from one network (values below 1: no cap).
// With skipLoopback, loopback addresses are not counted in a network
// (127.0.0.1 and 127.0.0.2 are two machines' worth only in a test).
// Refusals are counted on m (nil: not counted) under guard
// GuardPublicConns, scopes "peer" and "network".
func LimitSources(ln net.Listener, perIP, perNetwork int, skipLoopback bool, m *Metrics) *SourceListener {
	l := &SourceListener{Listener: ln, perIP: perIP, perNet: perNetwork, skipLoopback: skipLoopback, open: map[string]int{}}
	if m != nil {
		l.refusedIP, l.refusedNet = m.Counter(GuardPublicConns, ScopePeer), m.Counter(GuardPublicConns, ScopeNetwork)
	}
	return l
}

// Exempt makes the connections from the addresses f reports (a trusted
// reverse proxy, say: the clients behind it share its address) pass
// uncounted from now on.
func (l *SourceListener) Exempt(f func(netip.Addr) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.exempt = f
}

// Accept returns the next connection within the caps.
func (l *SourceListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
		if err != nil {
			return c, nil // not an IP connection: nothing to count it against
		}
		addr := ap.Addr().Unmap()
		l.mu.Lock()
		exempt := l.exempt
		l.mu.Unlock()
		if exempt != nil && exempt(addr) {
			return c, nil
		}
		if keys, ok := l.take(addr); ok {
			return &sourceConn{Conn: c, release: func() { l.release(keys) }}, nil
		}
		c.Close()
	}
}

// Open returns the connections open from addr and from its network.
func (l *SourceListener) Open(addr netip.Addr) (ip, network int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open["i"+addr.String()], l.open["n"+NetworkKey(addr)]
}

// take counts a connection from addr, unless a cap is reached.
func (l *SourceListener) take(addr netip.Addr) ([]string, bool) {
	keys := []string{"i" + addr.String()}
	countNet := !(l.skipLoopback && addr.IsLoopback())
	if countNet {
		keys = append(keys, "n"+NetworkKey(addr))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP > 0 && l.open[keys[0]] >= l.perIP {
		inc(l.refusedIP)
		return nil, false
	}
	if countNet && l.perNet > 0 && l.open[keys[1]] >= l.perNet {
		inc(l.refusedNet)
		return nil, false
	}
	for _, k := range keys {
		l.open[k]++
	}
	return keys, true
}

func (l *SourceListener) release(keys []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if l.open[k]--; l.open[k] <= 0 {
			delete(l.open, k)
		}
	}
}

// sourceConn gives its slot back when it is first closed.
type sourceConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *sourceConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
