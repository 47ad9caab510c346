package node

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
)

func TestHostLimitsRaised(t *testing.T) {
	const p = protocol.ID("/test/1.0.0")
	l := p2phost.NodeLimits(p)
	def := rcmgr.DefaultLimits.AutoScale()
	if got, base := l.ToPartialLimitConfig().ProtocolPeer[p].StreamsInbound, def.ToPartialLimitConfig().ProtocolPeerDefault.StreamsInbound; got <= base || got < 500 {
		t.Fatalf("per-peer inbound streams for %s = %v, default %v", p, got, base)
	}
	if conns := l.ToPartialLimitConfig().System.Conns; int(conns) < DefaultConnHigh {
		t.Fatalf("system connection limit %v below the connection manager's high water mark %d", conns, DefaultConnHigh)
	}
}

func TestHostTCPAndQUIC(t *testing.T) {
	newH := func() (peer.AddrInfo, func()) {
		sk, _, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := newHost(sk, DefaultListen, nil, 10, 20)
		if err != nil {
			t.Fatal(err)
		}
		return peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()}, func() { h.Close() }
	}
	a, closeA := newH()
	defer closeA()
	var tcp, quic bool
	for _, m := range a.Addrs {
		if _, err := m.ValueForProtocol(ma.P_TCP); err == nil {
			tcp = true
		}
		if _, err := m.ValueForProtocol(ma.P_QUIC_V1); err == nil {
			quic = true
		}
	}
	if !tcp || !quic {
		t.Fatalf("addrs %v: tcp %v quic %v", a.Addrs, tcp, quic)
	}

	sk, _, _ := crypto.GenerateEd25519Key(nil)
	h, err := newHost(sk, DefaultListen, nil, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Connect(ctx, a); err != nil {
		t.Fatalf("connect: %v", err)
	}
}
