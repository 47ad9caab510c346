package p2phost_test

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
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
	private := newHost(t, p2phost.WithReachability(p2phost.Reachability{Relays: []peer.AddrInfo{relayInfo}, Force: network.ReachabilityPrivate}))
	caller := newHost(t, p2phost.WithReachability(p2phost.Reachability{}))
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
