package p2phost_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/internal/polltest"
)

func newHost(t *testing.T, opts ...p2phost.Option) host.Host {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2phost.New(sk, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestDefaultsLoopbackTCP: by default a host listens on loopback TCP only
// and two hosts connect over Noise and yamux.
func TestDefaultsLoopbackTCP(t *testing.T) {
	a, b := newHost(t), newHost(t)
	if len(a.Addrs()) == 0 {
		t.Fatal("no listen address")
	}
	for _, m := range a.Addrs() {
		ip, err := m.ValueForProtocol(ma.P_IP4)
		if _, tcpErr := m.ValueForProtocol(ma.P_TCP); err != nil || ip != "127.0.0.1" || tcpErr != nil {
			t.Fatalf("address %s, want loopback TCP", m)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Connect(ctx, peer.AddrInfo{ID: a.ID(), Addrs: a.Addrs()}); err != nil {
		t.Fatalf("connect: %v", err)
	}
	conns := b.Network().ConnsToPeer(a.ID())
	if len(conns) == 0 {
		t.Fatal("no connection")
	}
	if st := conns[0].ConnState(); st.Security != "/noise" || st.StreamMultiplexer != "/yamux/1.0.0" {
		t.Fatalf("connection state %+v, want Noise and yamux", st)
	}
}

func TestQUIC(t *testing.T) {
	h := newHost(t, p2phost.WithListen("/ip4/127.0.0.1/udp/0/quic-v1"), p2phost.WithQUIC())
	var quic bool
	for _, m := range h.Addrs() {
		if _, err := m.ValueForProtocol(ma.P_QUIC_V1); err == nil {
			quic = true
		}
	}
	if !quic {
		t.Fatalf("addresses %v, want a QUIC one", h.Addrs())
	}
}

// TestAddrFilter: announce replaces the found addresses and no-announce
// drops single addresses and whole subnets.
func TestAddrFilter(t *testing.T) {
	pub := ma.StringCast("/ip4/203.0.113.7/tcp/4001")
	other := ma.StringCast("/ip4/198.51.100.1/tcp/4001")
	h := newHost(t, p2phost.WithAddrFilter(
		[]ma.Multiaddr{pub, other, ma.StringCast("/ip4/10.1.2.3/tcp/4001")},
		[]ma.Multiaddr{other, ma.StringCast("/ip4/10.0.0.0/ipcidr/8")},
	))
	got := h.Addrs()
	if len(got) != 1 || !got[0].Equal(pub) {
		t.Fatalf("addresses %v, want only %s", got, pub)
	}
}

// TestReachabilityRelay: a private host reserves a slot on the relay it
// is given and is reached through it over a limited connection.
func TestReachabilityRelay(t *testing.T) {
	relay := newHost(t, p2phost.WithReachability(p2phost.Reachability{RelayService: true, Force: network.ReachabilityPublic}))
	relayInfo := peer.AddrInfo{ID: relay.ID(), Addrs: relay.Addrs()}
	// On loopback neither starts hole punching (no public address), so
	// they do without its wait (TestPunchWait).
	private := newHost(t, p2phost.WithReachability(p2phost.Reachability{Relays: []peer.AddrInfo{relayInfo}, Force: network.ReachabilityPrivate, PunchWait: -1}))
	caller := newHost(t, p2phost.WithReachability(p2phost.Reachability{PunchWait: -1}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := private.Connect(ctx, relayInfo); err != nil {
		t.Fatal(err)
	}
	// The relay refuses a circuit to a peer without a reservation, so the
	// dial succeeds once AutoRelay has reserved a slot. (Loopback relay
	// addresses are not announced, so the caller builds the address.)
	circuit := relay.Addrs()[0].Encapsulate(ma.StringCast("/p2p/" + relay.ID().String() + "/p2p-circuit"))
	polltest.Until(t, 20*time.Second, func() error {
		caller.Network().ClosePeer(private.ID())
		caller.Peerstore().ClearAddrs(private.ID())
		return caller.Connect(ctx, peer.AddrInfo{ID: private.ID(), Addrs: []ma.Multiaddr{circuit}})
	})
	conns := caller.Network().ConnsToPeer(private.ID())
	if len(conns) != 1 || !p2phost.IsRelayed(conns[0]) {
		t.Fatalf("connections %v, want one relayed", conns)
	}
}

// TestHolePunchReady: the hole-punching service of a host with a public
// address starts; a host with loopback addresses only, or without
// reachability, never starts one.
func TestHolePunchReady(t *testing.T) {
	// Announced only: nothing here dials it.
	public := ma.StringCast("/ip4/1.2.3.4/tcp/4001")
	punchable := newHost(t, p2phost.WithReachability(p2phost.Reachability{Force: network.ReachabilityPublic}),
		p2phost.WithAddrFilter([]ma.Multiaddr{public}, nil))
	loopback := newHost(t, p2phost.WithReachability(p2phost.Reachability{Force: network.ReachabilityPrivate}))
	plain := newHost(t)
	polltest.For(t, 30*time.Second, "hole punching on a host with a public address", func() bool {
		return p2phost.HolePunchReady(punchable)
	})
	// Built at the same time as the first, the other two had their
	// first look for a public address too, and have none.
	for name, h := range map[string]host.Host{"loopback": loopback, "no reachability": plain} {
		if p2phost.HolePunchReady(h) {
			t.Errorf("%s host: hole punching started", name)
		}
	}
}

// TestPunchWait: a host refuses relayed connections until its hole
// punching has started or its PunchWait has passed. Behind one relay: a
// host that starts hole punching (it announces a public address) is
// reached through the relay long before its wait ends; one that cannot
// (loopback only) is reached only once its wait has passed; and a caller
// that cannot start hole punching dials no relayed connection within its
// own wait.
func TestPunchWait(t *testing.T) {
	relay := newHost(t, p2phost.WithReachability(p2phost.Reachability{RelayService: true, Force: network.ReachabilityPublic}))
	relayInfo := peer.AddrInfo{ID: relay.ID(), Addrs: relay.Addrs()}
	circuit := relay.Addrs()[0].Encapsulate(ma.StringCast("/p2p/" + relay.ID().String() + "/p2p-circuit"))
	private := func(wait time.Duration, opts ...p2phost.Option) host.Host {
		h := newHost(t, append(opts, p2phost.WithReachability(p2phost.Reachability{
			Relays: []peer.AddrInfo{relayInfo}, Force: network.ReachabilityPrivate, PunchWait: wait}))...)
		if err := h.Connect(context.Background(), relayInfo); err != nil {
			t.Fatal(err)
		}
		return h
	}
	caller := newHost(t, p2phost.WithReachability(p2phost.Reachability{PunchWait: -1}))
	waitingCaller := newHost(t, p2phost.WithReachability(p2phost.Reachability{PunchWait: time.Hour}))
	// dial connects from to to through the relay and opens a stream that
	// to answers: the dialler's handshake may end before to has refused
	// the connection, so only the answer shows that to accepted it.
	const answer = protocol.ID("/adpnode/test/answer")
	dial := func(from, to host.Host) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		from.Network().ClosePeer(to.ID())
		from.Peerstore().ClearAddrs(to.ID())
		if err := from.Connect(ctx, peer.AddrInfo{ID: to.ID(), Addrs: []ma.Multiaddr{circuit}}); err != nil {
			return err
		}
		s, err := from.NewStream(network.WithAllowLimitedConn(ctx, "test"), to.ID(), answer)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = io.ReadFull(s, make([]byte, 1))
		return err
	}
	answering := func(h host.Host) host.Host {
		h.SetStreamHandler(answer, func(s network.Stream) {
			s.Write([]byte{1})
			s.Close()
		})
		return h
	}

	// Announced only: nothing here dials it.
	punching := answering(private(time.Hour, p2phost.WithAddrFilter([]ma.Multiaddr{ma.StringCast("/ip4/1.2.3.4/tcp/4001")}, nil)))
	polltest.Until(t, 30*time.Second, func() error { return dial(caller, punching) })
	if !p2phost.HolePunchReady(punching) {
		t.Fatal("reached through the relay before its hole punching started")
	}
	// The refusal is the gater's, of every address: node/invoke words it
	// for users by these two.
	if err := dial(waitingCaller, punching); !errors.Is(err, swarm.ErrGaterDisallowedConnection) || !errors.Is(err, swarm.ErrNoGoodAddresses) {
		t.Fatalf("a caller without hole punching dialled a relayed connection within its wait: %v, want the gater's refusal of every address", err)
	}

	const wait = 3 * time.Second
	built := time.Now()
	loopback := answering(private(wait))
	polltest.Until(t, 30*time.Second, func() error { return dial(caller, loopback) })
	if since := time.Since(built); since < wait {
		t.Fatalf("a host without hole punching accepted a relayed connection %v after it was built, within its wait of %v", since, wait)
	}
}

// TestClose: Close of a connected host returns without error, leaves it
// no connection and its peer sees it go; a closed host dials no more.
// (The bound on a Close that blocks is TestCloseWithin's.)
func TestClose(t *testing.T) {
	a, b := newHost(t), newHost(t)
	if err := b.Connect(context.Background(), peer.AddrInfo{ID: a.ID(), Addrs: a.Addrs()}); err != nil {
		t.Fatal(err)
	}
	if err := p2phost.Close(a); err != nil {
		t.Fatal(err)
	}
	if n := len(a.Network().Conns()); n != 0 {
		t.Fatalf("%d connections left open", n)
	}
	polltest.For(t, 10*time.Second, "the peer sees the closed host go", func() bool {
		return b.Network().Connectedness(a.ID()) != network.Connected
	})
	if err := a.Connect(context.Background(), peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err == nil {
		t.Fatal("a closed host connected again")
	}
}

// TestWatchReachability: the watch reports the reachability the host
// announced (here the forced one), unknown before any; a host without a
// relay reservation has no relay address.
func TestWatchReachability(t *testing.T) {
	forced := newHost(t, p2phost.WithReachability(p2phost.Reachability{Force: network.ReachabilityPrivate, PunchWait: -1}))
	w, err := p2phost.WatchReachability(forced)
	if err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "the forced reachability", func() bool { return w.Reachability() == network.ReachabilityPrivate })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	plain := newHost(t)
	u, err := p2phost.WatchReachability(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if r := u.Reachability(); r != network.ReachabilityUnknown {
		t.Fatalf("a host that announced nothing: %v", r)
	}
	if a := p2phost.RelayAddrs(plain); a == nil || len(a) != 0 {
		t.Fatalf("relay addresses %v, want an empty list", a)
	}
}
