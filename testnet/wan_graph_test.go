package testnet_test

import (
	"container/heap"
	"crypto/sha256"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"
)

// wanBucket is kad-dht's bucket size (k).
const wanBucket = 20

// bucketFill returns the nodes node i connects to so that its routing
// table is that of a network that has run a while: up to wanBucket peers,
// drawn by rng, at each common prefix length between their kad-dht keys
// (the SHA-256 of the peer id) and its own.
func (w *wanNet) bucketFill(i int, rng *rand.Rand) []int {
	if w.kadKeys == nil {
		for _, h := range w.hosts {
			w.kadKeys = append(w.kadKeys, sha256.Sum256([]byte(h.ID())))
		}
	}
	var byCPL [257][]int
	for j := range w.hosts {
		if j != i {
			c := cpl(w.kadKeys[i], w.kadKeys[j])
			byCPL[c] = append(byCPL[c], j)
		}
	}
	var out []int
	for _, js := range byCPL {
		rng.Shuffle(len(js), func(a, b int) { js[a], js[b] = js[b], js[a] })
		out = append(out, js[:min(len(js), wanBucket)]...)
	}
	return out
}

// cpl returns the number of leading bits a and b share.
func cpl(a, b [32]byte) int {
	for i := range a {
		if x := a[i] ^ b[i]; x != 0 {
			return i*8 + bits.LeadingZeros8(x)
		}
	}
	return 256
}

// hopDistance returns the hop distance over the edges adj from node k
// to the farthest node it reaches (breadth first).
func hopDistance(adj [][]int, k int) (hops int) {
	dist := make([]int, len(adj))
	for i := range dist {
		dist[i] = -1
	}
	dist[k] = 0
	queue := []int{k}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range adj[u] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				hops = max(hops, dist[v])
				queue = append(queue, v)
			}
		}
	}
	return hops
}

// connAdj returns the connection graph as it stands: each node's
// connected peers.
func (w *wanNet) connAdj() [][]int {
	adj := make([][]int, len(w.hosts))
	for i, h := range w.hosts {
		for _, p := range h.Network().Peers() {
			adj[i] = append(adj[i], w.idx[p])
		}
	}
	return adj
}

// meshAdj returns the edges a card takes in GossipSub from publisher k:
// k's connections (flood publishing), and every other node's mesh. It
// leaves out gossip (IHAVE, IWANT), which waits for a heartbeat.
func (w *wanNet) meshAdj(k int) [][]int {
	adj := make([][]int, len(w.hosts))
	for i, m := range w.meshes {
		peers := m.peers()
		if i == k {
			peers = w.hosts[k].Network().Peers()
		}
		for _, p := range peers {
			adj[i] = append(adj[i], w.idx[p])
		}
	}
	return adj
}

// meshChanges returns how many times the nodes' meshes have changed.
func (w *wanNet) meshChanges() (n int) {
	for _, m := range w.meshes {
		n += m.changed()
	}
	return n
}

// reached returns a copy of byNode (delaysByNode's) without the nodes not
// reached.
func reached(byNode []time.Duration) []time.Duration {
	return slices.DeleteFunc(slices.Clone(byNode), func(d time.Duration) bool { return d == math.MaxInt64 })
}

// delaysByNode returns the least delay from node k to each node over the
// edges adj, with the link latencies (Dijkstra), by node index: k's own
// 0, math.MaxInt64 for a node k does not reach.
func (w *wanNet) delaysByNode(k int, adj [][]int) []time.Duration {
	best := make([]time.Duration, len(w.hosts))
	for i := range best {
		best[i] = math.MaxInt64
	}
	best[k] = 0
	pq := &delayHeap{{k, 0}}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(delayItem)
		if it.d > best[it.node] {
			continue
		}
		for _, v := range adj[it.node] {
			if d := it.d + w.latency(it.node, v); d < best[v] {
				best[v] = d
				heap.Push(pq, delayItem{v, d})
			}
		}
	}
	return best
}

type delayItem struct {
	node int
	d    time.Duration
}

type delayHeap []delayItem

func (h delayHeap) Len() int           { return len(h) }
func (h delayHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h delayHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)        { *h = append(*h, x.(delayItem)) }
func (h *delayHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
