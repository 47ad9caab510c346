package testnet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// spreadStats is how one new card spread through a wanNet.
type spreadStats struct {
	// lat is each other node's first arrival of the card after the
	// publish, sorted; p95 and p100 are its 95th percentile and greatest.
	// byNode is the same by node index (the publisher's own 0).
	lat, byNode []time.Duration
	p95, p100   time.Duration
	// hops and bound are the hop distance from the publisher to the
	// farthest node over the connection graph at the publish, and the
	// delay of the fastest path to the farthest node (the sum of the link
	// latencies along it): no message can reach every node sooner.
	hops  int
	bound time.Duration
	// fastest is each node's fastest-path delay from the publisher over
	// the connection graph at the publish, by node index (the
	// publisher's own 0).
	fastest []time.Duration
	// mesh100 and mesh95 are the same delay over the paths GossipSub
	// sends a card along (wanNet.meshAdj), greatest and 95th percentile:
	// the time the protocol would take if nodes took no time to relay;
	// meshByNode is that delay by node index. meshSteady reports whether
	// no mesh changed between the publish and the last arrival, so that
	// those were the paths the card could take.
	mesh100, mesh95 time.Duration
	meshByNode      []time.Duration
	meshSteady      bool
	// excess is, for each direct neighbour of the publisher, its arrival
	// less the link's latency.
	excess []time.Duration
}

// spread publishes node k's card at seq and waits until every other node
// holds it.
func (w *wanNet) spread(tb testing.TB, k int, seq uint64) spreadStats {
	tb.Helper()
	card := w.card(tb, k, seq)
	var st spreadStats
	adj := w.connAdj()
	st.fastest = w.delaysByNode(k, adj)
	st.hops, st.bound = hopDistance(adj, k), slices.Max(reached(st.fastest))
	st.meshByNode = w.delaysByNode(k, w.meshAdj(k))
	changes := w.meshChanges()
	meshDelays := reached(st.meshByNode)
	slices.Sort(meshDelays)
	meshDelays = meshDelays[1:] // k's own 0
	st.mesh100, st.mesh95 = meshDelays[len(meshDelays)-1], percentile(meshDelays, 95)
	neighbours := w.hosts[k].Network().Peers()
	start := time.Now()
	if err := w.gossips[k].Publish(context.Background(), card); err != nil {
		tb.Fatal(err)
	}
	polltest.Until(tb, 2*time.Minute, func() error {
		w.mu.Lock()
		defer w.mu.Unlock()
		missing := 0
		for j := range w.hosts {
			if j != k && w.seqs[j][card.ID] != seq {
				missing++
			}
		}
		if missing > 0 {
			return fmt.Errorf("%d of %d nodes lack the card", missing, len(w.hosts)-1)
		}
		return nil
	})
	st.meshSteady = w.meshChanges() == changes
	w.mu.Lock()
	defer w.mu.Unlock()
	st.byNode = make([]time.Duration, len(w.hosts))
	for j := range w.hosts {
		if j != k {
			st.byNode[j] = w.arrived[j][card.ID].Sub(start)
		}
	}
	for _, p := range neighbours {
		j := w.idx[p]
		st.excess = append(st.excess, st.byNode[j]-w.latency(k, j))
	}
	st.lat = slices.Delete(slices.Clone(st.byNode), k, k+1)
	slices.Sort(st.lat)
	st.p95, st.p100 = percentile(st.lat, 95), st.lat[len(st.lat)-1]
	return st
}

// dhtGets has 20 nodes put a card each, then gets cards of theirs from
// gets random nodes (16 at a time) and returns the gets' times, sorted.
func (w *wanNet) dhtGets(tb testing.TB, gets int, seed uint64) []time.Duration {
	tb.Helper()
	n := len(w.hosts)
	const putters = 20
	var wg sync.WaitGroup
	errs := make([]error, putters)
	for j := range putters {
		k := (j * 31) % n
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			errs[j] = w.dhts[k].PutCard(ctx, w.card(tb, k, 1_000_000))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	lat := make([]time.Duration, gets)
	errs = make([]error, gets)
	sem := make(chan struct{}, 16)
	for g := range gets {
		from, owner := rng.IntN(n), (rng.IntN(putters)*31)%n
		if from == owner {
			from = (from + 1) % n
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			c, err := w.dhts[from].GetCard(ctx, adp.AgentID(w.hosts[owner].ID()))
			lat[g] = time.Since(start)
			if err == nil && seqOf(c) != 1_000_000 {
				err = fmt.Errorf("got seq %d", seqOf(c))
			}
			errs[g] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	slices.Sort(lat)
	return lat
}

// connsPerNode returns the mean number of connections a node holds.
func (w *wanNet) connsPerNode() float64 {
	var conns int
	for _, h := range w.hosts {
		conns += len(h.Network().Peers())
	}
	return float64(conns) / float64(len(w.hosts))
}
