package p2phost_test

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
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
