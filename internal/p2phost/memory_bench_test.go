package p2phost_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/internal/polltest"
)

// memHosts is the size of the full mesh BenchmarkHostMemory builds per
// case: each host holds memHosts-1 connections, as a node of a small
// testnet does.
const memHosts = 8

// BenchmarkHostMemory reports what each option of the builder costs a
// host in Go heap (KiB/host, live after a collection) and goroutines
// (goroutines/host), for a full mesh of memHosts hosts on loopback TCP
// whose connections have been identified. The "tcp" case is the
// baseline every other case adds one option to; the table in
// docs/operations.md comes from
//
//	go test -run XXX -bench BenchmarkHostMemory -benchtime 3x ./internal/p2phost
//
// NAT port mapping is left out: it searches the local network for a
// gateway (UPnP, NAT-PMP), which a benchmark must not do.
func BenchmarkHostMemory(b *testing.B) {
	reach := p2phost.WithReachability(p2phost.Reachability{})
	cases := []struct {
		name string
		opts []p2phost.Option
	}{
		{"tcp", nil},
		{"quic-transport", []p2phost.Option{p2phost.WithQUIC()}},
		{"quic-listen", []p2phost.Option{p2phost.WithQUIC(), p2phost.WithListen("/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1")}},
		{"limits", []p2phost.Option{p2phost.WithLimits(rcmgr.DefaultLimits.Scale(1<<30, 4096))}},
		{"conn-manager", []p2phost.Option{p2phost.WithConnManager(64, 192, time.Minute)}},
		{"relay-client", []p2phost.Option{p2phost.WithLibp2pOptions(libp2p.EnableRelay())}},
		{"autonat-v2", []p2phost.Option{p2phost.WithLibp2pOptions(libp2p.EnableAutoNATv2())}},
		{"autonat-service", []p2phost.Option{p2phost.WithLibp2pOptions(libp2p.EnableNATService())}},
		{"hole-punching", []p2phost.Option{p2phost.WithLibp2pOptions(libp2p.EnableRelay(), libp2p.EnableHolePunching())}},
		{"reachability", []p2phost.Option{reach}},
		{"reachability+relay-service", []p2phost.Option{p2phost.WithReachability(p2phost.Reachability{RelayService: true})}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var heap, goroutines float64
			for range b.N {
				h, g := meshMemory(b, c.opts)
				heap, goroutines = heap+h, goroutines+g
			}
			b.ReportMetric(heap/float64(b.N)/1024, "KiB/host")
			b.ReportMetric(goroutines/float64(b.N), "goroutines/host")
		})
	}
}

// meshMemory builds memHosts hosts with opts, connects every pair, waits
// until every connection is identified and returns the live heap and
// goroutines per host that the mesh added.
func meshMemory(b *testing.B, opts []p2phost.Option) (heapPerHost, goroutinesPerHost float64) {
	b.Helper()
	heap0, g0 := liveHeap()
	hosts := make([]host.Host, memHosts)
	for i := range hosts {
		sk, _, err := crypto.GenerateEd25519Key(nil)
		if err != nil {
			b.Fatal(err)
		}
		if hosts[i], err = p2phost.New(sk, opts...); err != nil {
			b.Fatal(err)
		}
	}
	defer func() {
		for _, h := range hosts {
			h.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, a := range hosts {
		for _, c := range hosts[i+1:] {
			if err := a.Connect(ctx, peer.AddrInfo{ID: c.ID(), Addrs: c.Addrs()}); err != nil {
				b.Fatalf("connect: %v", err)
			}
		}
	}
	polltest.Until(b, 30*time.Second, func() error {
		for _, a := range hosts {
			for _, c := range hosts {
				if a == c {
					continue
				}
				if protos, err := a.Peerstore().GetProtocols(c.ID()); err != nil || len(protos) == 0 {
					return fmt.Errorf("%s has not identified %s (%v)", a.ID(), c.ID(), err)
				}
			}
		}
		return nil
	})
	heap1, g1 := liveHeap()
	return float64(int64(heap1)-int64(heap0)) / memHosts, float64(g1-g0) / memHosts
}

// liveHeap collects garbage and returns the live heap and the goroutine
// count.
func liveHeap() (uint64, int) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}
