package gossip_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/p2pnet"
)

// Goals from the issue: a new card reaches every node within
// goalPropagation; a DHT get answers within goalGet.
const (
	benchNodes      = 100
	goalPropagation = 100 * time.Millisecond
	goalGet         = 20 * time.Millisecond
)

// benchNet is a mocknet of benchNodes hosts, each running a DHT server
// (bootstrapped from host 0) and a Gossip.
type benchNet struct {
	nw    *p2pnet.Network
	dhts  []*dht.DHT
	nodes []*node
}

func newBenchNet(b *testing.B) *benchNet {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	nw, err := p2pnet.New(ctx, benchNodes, p2pnet.WithTopology(p2pnet.Star))
	if err != nil {
		b.Fatal(err)
	}
	bn := &benchNet{nw: nw}
	b.Cleanup(func() {
		for _, n := range bn.nodes {
			n.g.Close()
		}
		for _, d := range bn.dhts {
			d.Close()
		}
		nw.Close()
	})
	boot, _ := nw.AddrInfo(0)
	for _, h := range nw.Hosts() {
		d, err := dht.New(h, dht.Mode(dht.ModeServer), dht.BootstrapPeers(boot))
		if err != nil {
			b.Fatal(err)
		}
		bn.dhts = append(bn.dhts, d)
	}
	var wg sync.WaitGroup
	errs := make([]error, benchNodes)
	for i, d := range bn.dhts[1:] {
		wg.Go(func() { errs[i] = d.Bootstrap(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	bn.nodes = startNodes(b, nw, 0, benchNodes)
	waitFor(b, 2*time.Minute, "meshes built", func() bool {
		for _, n := range bn.nodes {
			peers := len(n.g.Peers())
			if peers == 0 || n.g.MeshSize() < min(peers, 4) {
				return false
			}
		}
		return true
	})
	return bn
}

// BenchmarkCardPropagation publishes a new card from a different node each
// iteration and reports, from the arrival times recorded by each node's
// OnCard, how long the card took to reach the first, 95% and 100% of the
// other nodes (means over the iterations), and the 100% figure's ratio to
// the goal.
func BenchmarkCardPropagation(b *testing.B) {
	bn := newBenchNet(b)
	ctx := context.Background()
	seqs := make([]uint64, benchNodes)
	var p95s, p100s, firsts []time.Duration
	i := 0
	for b.Loop() {
		owner := bn.nodes[i%benchNodes]
		seqs[i%benchNodes]++
		seq := seqs[i%benchNodes]
		i++
		b.StopTimer()
		card := newCard(b, owner.sk, seq, "bench")
		b.StartTimer()

		start := time.Now()
		if err := owner.g.Publish(ctx, card); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 30*time.Second, "card everywhere", func() bool {
			for _, n := range bn.nodes {
				if n != owner && n.store.seq(owner.agent()) != seq {
					return false
				}
			}
			return true
		})
		var lat []time.Duration
		for _, n := range bn.nodes {
			if n == owner {
				continue
			}
			n.store.mu.Lock()
			lat = append(lat, n.store.arrived[owner.agent()].Sub(start))
			n.store.mu.Unlock()
		}
		slices.Sort(lat)
		firsts = append(firsts, lat[0])
		p95s = append(p95s, lat[(len(lat)*95+99)/100-1])
		p100s = append(p100s, lat[len(lat)-1])
	}
	p100 := mean(p100s)
	b.ReportMetric(ms(mean(firsts)), "ms-first")
	b.ReportMetric(ms(mean(p95s)), "ms-95%")
	b.ReportMetric(ms(p100), "ms-100%")
	b.ReportMetric(float64(p100)/float64(goalPropagation), "100%/goal")
}

// BenchmarkDHTGetCard has every node put its card, then gets a card of
// another node from a different node each iteration, and reports the
// latency percentiles and their ratio to the goal, with kad-dht's default
// quorum (16 answers or the end of the lookup) and with lower ones.
func BenchmarkDHTGetCard(b *testing.B) {
	bn := newBenchNet(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, benchNodes)
	for i, n := range bn.nodes {
		card := newCard(b, n.sk, 1, "bench", "bench/get")
		wg.Go(func() { errs[i] = bn.dhts[i].PutCard(ctx, card) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}

	for _, q := range []int{0, 4, 1} {
		name := "quorum=default"
		if q > 0 {
			name = fmt.Sprintf("quorum=%d", q)
		}
		b.Run(name, func(b *testing.B) { benchGet(b, bn, q) })
	}
}

func benchGet(b *testing.B, bn *benchNet, quorum int) {
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		from := (i * 7) % benchNodes
		to := (i*13 + 1) % benchNodes
		if to == from {
			to = (to + 1) % benchNodes
		}
		i++
		start := time.Now()
		c, err := bn.dhts[from].GetCard(ctx, bn.nodes[to].agent(), dht.Quorum(quorum))
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if c.ID != adp.AgentID(bn.nodes[to].h.ID()) {
			b.Fatalf("got the card of %s", c.ID)
		}
	}
	slices.Sort(lat)
	p50 := lat[len(lat)/2]
	p99 := lat[(len(lat)*99+99)/100-1]
	b.ReportMetric(ms(p50), "ms-p50")
	b.ReportMetric(ms(p99), "ms-p99")
	b.ReportMetric(float64(p99)/float64(goalGet), "p99/goal")
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
