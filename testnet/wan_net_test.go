package testnet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	basicconnmgr "github.com/libp2p/go-libp2p/p2p/net/connmgr"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// wanNet is a mocknet in which every pair of hosts is linked (any node can
// dial any other, as on the Internet) with a one-way latency drawn in
// [-wan.minlat, -wan.maxlat], and each host runs a DHT server and a
// Gossip, as a node does, on a wanHost: with a connection manager and
// the cost of a dial.
type wanNet struct {
	mn      mocknet.Mocknet
	hosts   []host.Host // the wanHosts
	idx     map[peer.ID]int
	keys    []crypto.PrivKey
	seed    uint64
	kadKeys [][32]byte
	cms     []*basicconnmgr.BasicConnMgr
	dhts    []*dht.DHT
	gossips []*gossip.Gossip
	meshes  []*meshTrace

	mu      sync.Mutex
	arrived []map[string]time.Time // per node: agent id -> first arrival of its newest card
	seqs    []map[string]uint64
}

// latency returns the one-way latency of the link between hosts i and j,
// a function of the seed and the pair only.
func (w *wanNet) latency(i, j int) time.Duration {
	if i > j {
		i, j = j, i
	}
	x := w.seed ^ uint64(i)<<32 ^ uint64(j)
	// splitmix64's finalizer.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return *wanMinLat + time.Duration(x%uint64(*wanMaxLat-*wanMinLat+1))
}

func newWANNet(b testing.TB, n, degree int, seed uint64) *wanNet {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	began := time.Now()
	w := &wanNet{mn: mocknet.New(), idx: map[peer.ID]int{}, seed: seed}
	var pipe bool
	switch *wanLinks {
	case "pipe":
		pipe = true
	case "mocknet":
	default:
		b.Fatalf("-wan.links %q: want pipe or mocknet", *wanLinks)
	}
	stage := func(what string) {
		var conns int
		for _, h := range w.hosts {
			conns += len(h.Network().Peers())
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.Logf("%s: %v (%.1f connections a node, heap %d MiB, %d goroutines)", what, time.Since(began).Round(time.Millisecond),
			float64(conns)/float64(max(len(w.hosts), 1)), ms.HeapAlloc>>20, runtime.NumGoroutine())
	}
	b.Cleanup(func() {
		for _, g := range w.gossips {
			g.Close()
		}
		for _, d := range w.dhts {
			d.Close()
		}
		for _, cm := range w.cms {
			cm.Close()
		}
		w.mn.Close()
	})
	keyRand := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)})
	for i := range n {
		sk, err := p2pnet.GenerateKey(keyRand)
		if err != nil {
			b.Fatal(err)
		}
		// Addresses in the blackholed 100::/64 range, as mocknet's own.
		ip := netip.AddrFrom16([16]byte{0: 0x01, 14: byte(i >> 8), 15: byte(i)})
		addr, err := ma.NewMultiaddr(fmt.Sprintf("/ip6/%s/tcp/4242", ip))
		if err != nil {
			b.Fatal(err)
		}
		mh, err := w.mn.AddPeer(sk, addr)
		if err != nil {
			b.Fatal(err)
		}
		wh := &wanHost{Host: mh, cm: connmgr.NullConnMgr{}, dial: func(p peer.ID) time.Duration {
			return time.Duration(*wanDialRTT * float64(2*w.latency(i, w.idx[p])))
		}}
		if pipe {
			wh.lat = func(p peer.ID) time.Duration { return w.latency(i, w.idx[p]) }
		}
		if *wanHigh > 0 {
			cm, err := basicconnmgr.NewConnManager(*wanLow, *wanHigh,
				basicconnmgr.WithGracePeriod(*wanGrace), basicconnmgr.WithSilencePeriod(*wanGrace/5))
			if err != nil {
				b.Fatal(err)
			}
			mh.Network().Notify(cm.Notifee())
			w.cms, wh.cm = append(w.cms, cm), cm
		}
		w.idx[mh.ID()] = i
		w.hosts, w.keys = append(w.hosts, wh), append(w.keys, sk)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			l, err := w.mn.LinkPeers(w.hosts[i].ID(), w.hosts[j].ID())
			if err != nil {
				b.Fatal(err)
			}
			if !pipe {
				l.SetOptions(mocknet.LinkOptions{Latency: w.latency(i, j)})
			}
		}
	}
	stage("hosts and links")
	// The services start on unconnected hosts, so that kad-dht's refresh
	// at start finds nothing to walk; the network is then connected.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var psOpts []pubsub.Option
	if d := *wanD; d > 0 {
		p := pubsub.DefaultGossipSubParams()
		p.D, p.Dlo, p.Dhi = d, max(1, d*5/6), 2*d
		p.Dscore, p.Dout = max(1, 2*d/3), min(d/3, p.Dlo-1)
		psOpts = append(psOpts, pubsub.WithGossipSubParams(p))
	}
	var gopts []gossip.Option
	var dopts []dht.Option
	if *wanShare {
		check := adp.NewChecker(4096)
		gopts, dopts = append(gopts, gossip.WithChecker(check)), append(dopts, dht.WithChecker(check))
	}
	if *wanFill {
		// The fill stands for the refreshes a running network has done.
		dopts = append(dopts, dht.NoAutoRefresh())
	}
	w.arrived = make([]map[string]time.Time, n)
	w.seqs = make([]map[string]uint64, n)
	for i, h := range w.hosts {
		w.arrived[i], w.seqs[i] = map[string]time.Time{}, map[string]uint64{}
		d, err := dht.New(h, append(dopts, dht.Mode(dht.ModeServer))...)
		if err != nil {
			b.Fatal(err)
		}
		w.dhts = append(w.dhts, d)
		mt := newMeshTrace()
		g, err := gossip.New(h, append(gopts, gossip.OnCard(func(c *adp.Card, _ peer.ID) { w.onCard(i, c) }),
			gossip.PubSubOptions(append(psOpts, pubsub.WithRawTracer(mt))...))...)
		if err != nil {
			b.Fatal(err)
		}
		w.gossips, w.meshes = append(w.gossips, g), append(w.meshes, mt)
	}
	stage("services started")
	// The start graph: a ring (so that it is connected) and degree-1 more
	// connections from each node to random others.
	connect := func(i, j int) {
		if _, err := w.mn.ConnectPeers(w.hosts[i].ID(), w.hosts[j].ID()); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		targets := []int{(i + 1) % n}
		for len(targets) < degree {
			if j := rng.IntN(n); j != i && !slices.Contains(targets, j) {
				targets = append(targets, j)
			}
		}
		for _, j := range targets {
			connect(i, j)
		}
	}
	stage("start graph connected")
	if *wanFill {
		// The routing tables of a network that has run a while: each
		// node connects to up to wanBucket random peers at each common
		// prefix length with its own key, as its refreshes would find
		// them, and kad-dht adds the peers it connects to. Trimming
		// closes most of the connections later; the tables keep them.
		want := make([]int, n)
		for i := range n {
			fill := w.bucketFill(i, rng)
			for _, j := range fill {
				connect(i, j)
			}
			want[i] = len(fill)
		}
		polltest.Until(b, 5*time.Minute, func() error {
			for i, d := range w.dhts {
				if got := d.RoutingTableSize(); got < want[i]*9/10 {
					return fmt.Errorf("node %d: %d peers in its routing table, want %d", i, got, want[i])
				}
			}
			return nil
		})
		stage("routing tables filled")
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, *wanPar)
	errs := make([]error, n)
	for i, d := range w.dhts {
		if !*wanBoot {
			break
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = d.Bootstrap(ctx)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	stage("DHTs bootstrapped")
	if *wanHigh > 0 {
		// A running network is past the grace period of the connections
		// its DHT opened: once every connection is older than it, each
		// connection manager trims as it would on its next round.
		polltest.Until(b, 5*time.Minute, func() error {
			for i, h := range w.hosts {
				for _, p := range h.Network().Peers() {
					if ti := w.cms[i].GetTagInfo(p); ti != nil && time.Since(ti.FirstSeen) < *wanGrace {
						return fmt.Errorf("node %d: connection to %s within the grace period", i, p)
					}
				}
			}
			return nil
		})
		for _, cm := range w.cms {
			cm.TrimOpenConns(ctx)
		}
		stage("connections trimmed")
	}
	defer stage("meshes built")
	polltest.For(b, 5*time.Minute, "meshes built", func() bool {
		for _, g := range w.gossips {
			if peers := len(g.Peers()); peers == 0 || g.MeshSize() < min(peers, 4) {
				return false
			}
		}
		return true
	})
	return w
}

func (w *wanNet) onCard(i int, c *adp.Card) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := seqOf(c); s > w.seqs[i][c.ID] {
		w.seqs[i][c.ID], w.arrived[i][c.ID] = s, now
	}
}

// card returns node k's card at seq.
func (w *wanNet) card(b testing.TB, k int, seq uint64) *adp.Card {
	b.Helper()
	c := &adp.Card{Name: fmt.Sprintf("wan %d", k), Description: "WAN benchmark agent", Version: "1.0.0",
		Seq: &seq, Metadata: &adp.Metadata{UpdatedAt: time.Unix(1_700_000_000+int64(seq), 0).UTC().Format(time.RFC3339)}}
	if err := c.Sign(w.keys[k]); err != nil {
		b.Fatal(err)
	}
	return c
}
