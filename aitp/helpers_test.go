package aitp_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"

	"github.com/adpnode/adpnode/aitp"
)

// newHost starts a libp2p host on loopback TCP with an Ed25519 key.
func newHost(t testing.TB) host.Host {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := libp2p.New(
		libp2p.Identity(sk),
		libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"),
		libp2p.NoTransports, libp2p.Transport(tcp.NewTCPTransport),
		libp2p.DisableRelay(),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// connect makes b known to and connected from a.
func connect(t testing.TB, a, b host.Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Connect(ctx, peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err != nil {
		t.Fatal(err)
	}
}

// pair returns a server on one host and a client on another, connected.
func pair(t testing.TB, sopts []aitp.ServerOption, copts ...aitp.ClientOption) (*aitp.Server, *aitp.Client, host.Host, host.Host) {
	t.Helper()
	hs, hc := newHost(t), newHost(t)
	srv, err := aitp.NewServer(hs, sopts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	connect(t, hc, hs)
	cl := aitp.NewClient(hc, copts...)
	t.Cleanup(func() { cl.Close() })
	return srv, cl, hs, hc
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
