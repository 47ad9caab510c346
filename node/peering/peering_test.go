package peering_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/peering"
)

func newHost(t *testing.T, sk crypto.PrivKey, listen string) host.Host {
	t.Helper()
	h, err := p2phost.New(sk, p2phost.WithListen(listen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// start makes a Peering of h, started, closed at the end of the test.
func start(t *testing.T, h host.Host, opts ...peering.Option) *peering.Peering {
	t.Helper()
	p, err := peering.New(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

func newKey(t *testing.T) (crypto.PrivKey, peer.ID) {
	t.Helper()
	sk, pk, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPublicKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	return sk, id
}

// TestLateBootstrapReached: a bootstrap peer that is down when the node
// starts is retried with backoff, asked of the Finder after each failure,
// and reached once it is up; it is then a known peer, saved at Close and
// read back by the next Peering.
func TestLateBootstrapReached(t *testing.T) {
	skA, idA := newKey(t)
	skB, _ := newKey(t)
	port := freePort(t, "tcp")
	addrA := ma.StringCast("/ip4/127.0.0.1/tcp/" + port)
	hB := newHost(t, skB, "/ip4/127.0.0.1/tcp/0")
	known := filepath.Join(t.TempDir(), peering.KnownFile)
	var finds atomic.Int32
	p := start(t, hB,
		peering.Bootstrap(peer.AddrInfo{ID: idA, Addrs: []ma.Multiaddr{addrA}}),
		peering.KnownPeers(known, 0),
		peering.Interval(20*time.Millisecond),
		peering.WithBackoff(peering.Backoff{Base: 50 * time.Millisecond, Max: 400 * time.Millisecond}),
		peering.WithFinder(func(context.Context, peer.ID) (peer.AddrInfo, error) {
			finds.Add(1)
			return peer.AddrInfo{}, fmt.Errorf("not found")
		}))
	polltest.For(t, 10*time.Second, "two failed attempts", func() bool { return finds.Load() >= 2 })

	hA := newHost(t, skA, addrA.String())
	polltest.For(t, 15*time.Second, "connected to the late bootstrap peer", func() bool {
		return hB.Network().Connectedness(hA.ID()) == network.Connected
	})
	polltest.For(t, 10*time.Second, "bootstrap peer known", func() bool {
		k := p.Known()
		return len(k) == 1 && k[0].ID == idA
	})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	again, err := peering.New(hB, peering.KnownPeers(known, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if k := again.Known(); len(k) != 1 || k[0].ID != idA || len(k[0].Addrs) == 0 {
		t.Fatalf("known after restart: %v, want %s", k, idA)
	}
}

// TestKnownPeersRedialled: a peer that was met and lost is dialled again
// from the book while the host has fewer than MinPeers connections.
func TestKnownPeersRedialled(t *testing.T) {
	skA, _ := newKey(t)
	skB, _ := newKey(t)
	hA := newHost(t, skA, "/ip4/127.0.0.1/tcp/0")
	hB := newHost(t, skB, "/ip4/127.0.0.1/tcp/0")
	p := start(t, hB, peering.MinPeers(1), peering.Interval(20*time.Millisecond),
		peering.WithBackoff(peering.Backoff{Base: 20 * time.Millisecond, Max: 100 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hA.Connect(ctx, peer.AddrInfo{ID: hB.ID(), Addrs: hB.Addrs()}); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "peer noted", func() bool { return len(p.Known()) == 1 })
	var inbound atomic.Int32 // connections B dialled to A
	hA.Network().Notify(&network.NotifyBundle{ConnectedF: func(_ network.Network, c network.Conn) {
		if c.RemotePeer() == hB.ID() && c.Stat().Direction == network.DirInbound {
			inbound.Add(1)
		}
	}})
	for i := range int32(2) {
		if err := hA.Network().ClosePeer(hB.ID()); err != nil {
			t.Fatal(err)
		}
		polltest.For(t, 10*time.Second, "lost peer redialled", func() bool { return inbound.Load() > i })
	}
}
