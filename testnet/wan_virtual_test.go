//go:build !race

// Go 1.26's race runtime faults (SIGSEGV in runtime.(*timer).maybeRunChan)
// on the first timer a mocknet stream's transport goroutine selects on
// inside a synctest bubble, at any network size; without -race the same
// network runs, so this file is built only without it. The README's test
// command runs it in the testnet package's run without -race.

package testnet_test

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

var (
	wanVirtualNodes = flag.Int("wan.virtual.n", 100, "TestWANVirtualTime: nodes")
	wanVirtualCards = flag.Int("wan.virtual.cards", 3, "TestWANVirtualTime: cards published, one after another")
)

// TestWANVirtualTime runs the network of BenchmarkWAN (newWANNet, with
// the same -wan.* flags but -wan.n) in a synctest bubble, where time
// is the bubble's fake clock: it advances only when every goroutine of
// the network is blocked, so a node's work takes no time at all and
// only the links' latencies and the protocols' own timers count. That is
// a WAN on which every node has a processor of its own, where a node's
// 0.5 ms or so of CPU a card (BenchmarkWAN's profile) is small beside a
// link; BenchmarkWAN, in wall-clock time, has every node's work queue on
// the test machine's cores instead. At 500 nodes:
//
//	go test -count=1 -run TestWANVirtualTime -v ./testnet -wan.virtual.n 500 -wan.minlat 50ms -wan.maxlat 50ms
//
// Each of -wan.virtual.cards cards is published by another node. The test
// fails when a card does not reach every node; when it reaches a node
// sooner than the fastest path over the connection graph allows (the
// links would not be delaying it); and, unless a mesh changed while it
// spread, when a node has it at any other time than the delay of its
// quickest path from the publisher over the publisher's connections
// (flood publishing) and then the meshes: with no time spent in nodes,
// that is exactly when GossipSub's eager push brings it, and a node
// reached later would have waited on a heartbeat's gossip (IHAVE, IWANT)
// or on a delay of adpnode's own. It logs, card by card, the times to 95
// % and 100 % of the nodes beside the bound and the mesh's own bound, and
// then the DHT gets' p50 and p99 beside their goal.
func TestWANVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := *wanVirtualNodes
		if n < 2 || *wanVirtualCards < 1 {
			t.Fatalf("-wan.virtual.n %d, -wan.virtual.cards %d: want at least 2 nodes and 1 card", n, *wanVirtualCards)
		}
		w := newWANNet(t, n, *wanDegree, *wanSeed)
		meanLat := (*wanMinLat + *wanMaxLat) / 2
		r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
		var ratios []float64
		for i := 1; i <= *wanVirtualCards; i++ {
			k := (i * 97) % n
			sp := w.spread(t, k, uint64(i))
			var early, offMesh []string
			for j, d := range sp.byNode {
				switch {
				case j == k:
				case d < sp.fastest[j]:
					early = append(early, fmt.Sprintf("node %d after %v, fastest path %v", j, d, sp.fastest[j]))
				case sp.meshSteady && d != sp.meshByNode[j]:
					offMesh = append(offMesh, fmt.Sprintf("node %d after %v, mesh path %v", j, d, sp.meshByNode[j]))
				}
			}
			if len(early) > 0 {
				t.Errorf("card %d: %d nodes had it sooner than the fastest path over the connections allows, first %s", i, len(early), early[0])
			}
			if len(offMesh) > 0 {
				t.Errorf("card %d: %d nodes had it at another time than the publisher's links and the mesh bring it, first %v", i, len(offMesh), offMesh[:min(3, len(offMesh))])
			}
			if !sp.meshSteady {
				t.Logf("card %d: a mesh changed while it spread; its arrivals are checked against the fastest paths only", i)
			}
			ratio := float64(sp.p100) / float64(sp.bound)
			ratios = append(ratios, ratio)
			t.Logf("card %d from node %d: 95%% %v, 100%% %v; bound %v (%d hops; hops x mean %v), 100%%/bound %.2f; mesh-bound %v, mesh-95 %v",
				i, k, r(sp.p95), r(sp.p100), r(sp.bound), sp.hops, time.Duration(sp.hops)*meanLat, ratio, r(sp.mesh100), r(sp.mesh95))
		}
		lat := w.dhtGets(t, *wanGets, *wanSeed)
		dhtBound := time.Duration(math.Log2(float64(n)) * float64(2*meanLat))
		t.Logf("%d nodes, %.1f connections a node: 100%%/bound %.2f to %.2f; DHT get p50 %v, p99 %v (goal 3 x %v = %v)",
			n, w.connsPerNode(), slices.Min(ratios), slices.Max(ratios), r(lat[len(lat)/2]), r(percentile(lat, 99)), r(dhtBound), r(3*dhtBound))
	})
}
