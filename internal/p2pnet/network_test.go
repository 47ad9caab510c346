package p2pnet_test

import (
	"context"
	"crypto/rand"
	"errors"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

func TestTopologies(t *testing.T) {
	for _, tr := range []p2pnet.Transport{p2pnet.Mocknet, p2pnet.TCP} {
		for _, tc := range []struct {
			topo  p2pnet.Topology
			n     int
			peers func(i, n int) int // connections host i must have
		}{
			{p2pnet.Full, 5, func(_, n int) int { return n - 1 }},
			{p2pnet.Ring, 5, func(int, int) int { return 2 }},
			{p2pnet.Ring, 2, func(int, int) int { return 1 }},
			{p2pnet.Star, 5, func(i, n int) int {
				if i == 0 {
					return n - 1
				}
				return 1
			}},
			{p2pnet.Unconnected, 3, func(int, int) int { return 0 }},
		} {
			t.Run(tr.String()+"/"+tc.topo.String(), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				nw, err := p2pnet.New(ctx, tc.n, p2pnet.WithTransport(tr), p2pnet.WithTopology(tc.topo))
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := nw.Close(); err != nil {
						t.Error(err)
					}
				}()
				for i, h := range nw.Hosts() {
					want := tc.peers(i, tc.n)
					polltest.For(t, 10*time.Second, "the connections", func() bool { return connectedPeers(h.Network()) == want })
					sk, err := nw.Key(i)
					if err != nil {
						t.Fatal(err)
					}
					if sk.Type() != crypto.Ed25519 {
						t.Fatalf("host %d: key type %v", i, sk.Type())
					}
				}
			})
		}
	}
}

func connectedPeers(n network.Network) int {
	c := 0
	for _, p := range n.Peers() {
		if n.Connectedness(p) == network.Connected {
			c++
		}
	}
	return c
}

func TestAddLateJoinerAndKeys(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sk, err := p2pnet.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := p2pnet.New(ctx, 3, p2pnet.WithKeys(sk), p2pnet.WithTopology(p2pnet.Star))
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	h0, _ := nw.Host(0)
	if want, _ := peerIDOf(sk); h0.ID() != want {
		t.Fatalf("host 0 id %s, want %s", h0.ID(), want)
	}
	idx, err := nw.Add(ctx, nil, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if idx != 3 || nw.Len() != 4 {
		t.Fatalf("late joiner index %d, len %d", idx, nw.Len())
	}
	h3, _ := nw.Host(3)
	polltest.For(t, 10*time.Second, "the connections", func() bool { return connectedPeers(h3.Network()) == 2 })
	if _, err := nw.Host(4); !errors.Is(err, p2pnet.ErrBadIndex) {
		t.Fatalf("Host(4) = %v, want ErrBadIndex", err)
	}
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := nw.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := nw.Add(ctx, nil); !errors.Is(err, p2pnet.ErrClosed) {
		t.Fatalf("Add after Close = %v, want ErrClosed", err)
	}
}

func TestBadOptions(t *testing.T) {
	ecdsa, _, err := crypto.GenerateECDSAKeyPair(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2pnet.New(context.Background(), 1, p2pnet.WithKeys(ecdsa)); !errors.Is(err, p2pnet.ErrBadConfig) {
		t.Errorf("ECDSA key: %v, want ErrBadConfig", err)
	}
	sk, _ := p2pnet.GenerateKey(nil)
	for name, tc := range map[string]struct {
		n    int
		opts []p2pnet.Option
	}{
		"more keys than hosts": {0, []p2pnet.Option{p2pnet.WithKeys(sk)}},
		"negative count":       {-1, nil},
		"unknown transport":    {1, []p2pnet.Option{p2pnet.WithTransport(7)}},
		"unknown topology":     {1, []p2pnet.Option{p2pnet.WithTopology(99)}},
		"nil random reader":    {1, []p2pnet.Option{p2pnet.WithRand(nil)}},
	} {
		if _, err := p2pnet.New(context.Background(), tc.n, tc.opts...); !errors.Is(err, p2pnet.ErrBadConfig) {
			t.Errorf("%s: %v, want ErrBadConfig", name, err)
		}
	}

	nw, err := p2pnet.New(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	if _, err := nw.Add(context.Background(), ecdsa); !errors.Is(err, p2pnet.ErrBadConfig) {
		t.Errorf("Add with an ECDSA key: %v, want ErrBadConfig", err)
	}
	if nw.Len() != 1 {
		t.Errorf("a refused Add left %d hosts", nw.Len())
	}
}

// TestWithRandReproducible: the same random stream gives the same peer
// ids; another gives others.
func TestWithRandReproducible(t *testing.T) {
	ids := func(seed byte) []peer.ID {
		t.Helper()
		nw, err := p2pnet.New(context.Background(), 3, p2pnet.WithTopology(p2pnet.Unconnected),
			p2pnet.WithRand(mrand.NewChaCha8([32]byte{seed})))
		if err != nil {
			t.Fatal(err)
		}
		defer nw.Close()
		var out []peer.ID
		for _, h := range nw.Hosts() {
			if slices.Contains(out, h.ID()) {
				t.Fatalf("seed %d gave two hosts the id %s", seed, h.ID())
			}
			out = append(out, h.ID())
		}
		return out
	}
	a, b, c := ids(1), ids(1), ids(2)
	if !slices.Equal(a, b) {
		t.Fatalf("same stream, ids %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatal("different streams, same ids")
	}
}

func peerIDOf(sk crypto.PrivKey) (peer.ID, error) { return peer.IDFromPrivateKey(sk) }
