package aitptest

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/host"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2pnet"
)

// Pair is two hosts of an in-process network (internal/p2pnet): Server
// serves AITP on Callee and Client calls from Caller.
type Pair struct {
	Caller, Callee host.Host
	Client         *aitp.Client
	Server         *aitp.Server
}

// NewPair builds a Pair on a two-host p2pnet network (mocknet and fully
// connected unless opts say otherwise); the test's Cleanup closes all.
func NewPair(tb testing.TB, opts ...p2pnet.Option) *Pair {
	tb.Helper()
	nw, err := p2pnet.New(tb.Context(), 2, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { nw.Close() })
	h := nw.Hosts()
	srv, err := aitp.NewServer(h[1])
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	cl := aitp.NewClient(h[0])
	tb.Cleanup(func() { cl.Close() })
	return &Pair{Caller: h[0], Callee: h[1], Client: cl, Server: srv}
}
