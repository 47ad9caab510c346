package peering_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/peering"
)

// relayHost starts a loopback host with the relay transport, and with
// the relay service when serve.
func relayHost(t *testing.T, serve bool) host.Host {
	t.Helper()
	opts := []libp2p.Option{libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.EnableRelay()}
	if serve {
		opts = append(opts, libp2p.EnableRelayService(), libp2p.ForceReachabilityPublic())
	}
	h, err := libp2p.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestRelayedPeerNotRedialled: a peer reached through a relay is
// connected (a relayed connection carries calls and cards). Peering's
// rounds open no second connection to it, which would add a relayed
// connection each round and set off a hole punch at the far end each
// time, and never count it as unreachable. Another target, unreachable,
// shows the rounds go on meanwhile.
func TestRelayedPeerNotRedialled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, b, a := relayHost(t, true), relayHost(t, false), relayHost(t, false)
	rInfo := peer.AddrInfo{ID: r.ID(), Addrs: r.Addrs()}
	if err := b.Connect(ctx, rInfo); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Reserve(ctx, b, rInfo); err != nil {
		t.Fatal(err)
	}
	circuit := ma.StringCast(fmt.Sprintf("%s/p2p/%s/p2p-circuit", r.Addrs()[0], r.ID()))
	bInfo := peer.AddrInfo{ID: b.ID(), Addrs: []ma.Multiaddr{circuit}}
	if err := a.Connect(network.WithAllowLimitedConn(ctx, "test"), bInfo); err != nil {
		t.Fatal(err)
	}
	if conns := a.Network().ConnsToPeer(b.ID()); len(conns) != 1 || !conns[0].Stat().Limited {
		t.Fatalf("connections to the relayed peer: %v, want one limited", conns)
	}

	_, gone := newKey(t)
	var mu sync.Mutex
	finds := map[peer.ID]int{}
	start(t, a,
		peering.Bootstrap(bInfo, peer.AddrInfo{ID: gone, Addrs: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/" + freePort(t, "tcp"))}}),
		peering.Interval(20*time.Millisecond),
		peering.WithBackoff(peering.Backoff{Base: 20 * time.Millisecond, Max: 50 * time.Millisecond}),
		peering.WithFinder(func(_ context.Context, id peer.ID) (peer.AddrInfo, error) {
			mu.Lock()
			defer mu.Unlock()
			finds[id]++
			return peer.AddrInfo{}, fmt.Errorf("not found")
		}))
	polltest.For(t, 20*time.Second, "three failed dials of the unreachable target", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return finds[gone] >= 3
	})
	mu.Lock()
	n := finds[b.ID()]
	mu.Unlock()
	if n > 0 {
		t.Errorf("the relayed peer was counted unreachable %d times", n)
	}
	if conns := a.Network().ConnsToPeer(b.ID()); len(conns) != 1 {
		t.Errorf("%d connections to the relayed peer, want the one relayed connection", len(conns))
	}
}
