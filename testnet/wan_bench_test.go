package testnet_test

import (
	"flag"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The WAN benchmark's shape, settable from the command line:
//
//	go test -run '^$' -bench BenchmarkWAN -benchtime 3x ./testnet -wan.n 500
var (
	wanNodes   = flag.Int("wan.n", 500, "BenchmarkWAN: nodes")
	wanDegree  = flag.Int("wan.degree", 4, "BenchmarkWAN: connections each node opens at start (to random others)")
	wanSeed    = flag.Uint64("wan.seed", 1, "BenchmarkWAN: seed of the identities, latencies and start graph")
	wanGets    = flag.Int("wan.gets", 200, "BenchmarkWAN: DHT gets measured")
	wanBoot    = flag.Bool("wan.bootstrap", false, "BenchmarkWAN: run each DHT's own bootstrap (its refresh walks) before measuring; slow on large N")
	wanFill    = flag.Bool("wan.fill", true, "BenchmarkWAN: fill the routing tables as a network that has run a while has them (see bucketFill)")
	wanMinLat  = flag.Duration("wan.minlat", 20*time.Millisecond, "BenchmarkWAN: least one-way link latency")
	wanMaxLat  = flag.Duration("wan.maxlat", 80*time.Millisecond, "BenchmarkWAN: greatest one-way link latency")
	wanDialRTT = flag.Float64("wan.dialrtt", 2, "BenchmarkWAN: round trips of a link a new connection costs before its first stream (TCP, then Noise XX)")
	wanLow     = flag.Int("wan.low", 8, "BenchmarkWAN: connection manager's low water mark (a node's is node.DefaultConnLow)")
	wanHigh    = flag.Int("wan.high", 16, "BenchmarkWAN: connection manager's high water mark (0: no connection manager; a node's is node.DefaultConnHigh)")
	wanGrace   = flag.Duration("wan.grace", 10*time.Second, "BenchmarkWAN: connection manager's grace period (a node's is a minute; the set-up compresses time)")
	wanPar     = flag.Int("wan.par", 64, "BenchmarkWAN: DHT bootstraps run at once")
	wanShare   = flag.Bool("wan.sharecheck", true, "BenchmarkWAN: all nodes share one card check, so a card's signature is verified once in the process, not once a node (see BenchmarkWAN)")
	wanLinks   = flag.String("wan.links", "pipe", "BenchmarkWAN: how a link delays writes: pipe (each write its latency after it was made, as TCP; see wanStream) or mocknet (mocknet's link latency, one write in flight a stream)")
	wanD       = flag.Int("wan.d", 0, "BenchmarkWAN: GossipSub mesh degree D, Dlo and Dhi scaled with it (0: the gossip package's)")
	wanGap     = flag.Duration("wan.gap", 0, "BenchmarkWAN: pause after a card has reached every node before the next is published (not counted in cpu-cores)")
	wanGC      = flag.Bool("wan.gc", true, "BenchmarkWAN: let the Go collector run while cards spread (false: off from the first card to the DHT gets; the set-up's garbage is collected before either way)")
	wanProf    = flag.String("wan.cpuprofile", "", "BenchmarkWAN: write a CPU profile of the cards' spreading (not the set-up or the DHT gets) to this file")
)

// BenchmarkWAN measures card propagation and DHT gets on an in-process
// WAN of -wan.n nodes:
//
//	go test -run '^$' -bench BenchmarkWAN -benchtime 5x ./testnet -wan.n 500 -wan.seed 1
//
// The network. Every pair of mocknet hosts is linked (any node can dial
// any other, as on the Internet; 125,000 links cost 2 s at 500 nodes),
// each link with a one-way latency in [-wan.minlat, -wan.maxlat] (20-80
// ms) drawn from -wan.seed and the pair, which every write on a stream
// over it takes to arrive (wanStream; -wan.links). Each node runs a DHT server and
// the card topic on a wanHost: a connection manager (-wan.low, -wan.high,
// -wan.grace), and -wan.dialrtt round trips of the link before a new
// connection carries anything (TCP, then Noise). By default all nodes
// share one card check (-wan.sharecheck): a card's signature is verified
// once in the process instead of once a node, since a real node verifies
// on its own CPU while here every node's check queues on the same cores.
//
// The set-up is that of a network that has run a while, not of one that
// starts all at once: the services start unconnected (with
// dht.NoAutoRefresh), the nodes connect in a ring plus -wan.degree-1
// random peers, then each connects to up to 20 random peers at each
// common prefix length with its kad-dht key (bucketFill), as its
// refreshes would have found them, and kad-dht adds them to its routing
// table. Once the connections are past the grace period the connection
// managers trim. A node cannot trim below what kad-dht protects (its two
// farthest buckets, up to 40 peers) and its GossipSub mesh, so with the
// default water marks (8, 16) a node keeps about 40 connections. With a
// node's own (node.DefaultConnLow and DefaultConnHigh, 160 and 320), a
// network of a few hundred nodes is nearly complete, which one process
// cannot hold at 500 nodes. -wan.bootstrap runs every DHT's own walks
// instead of the fill: 52 s for 150 nodes, 3 min for 300, and 500 did
// not finish within 11 min (the walks, not the links, took the time).
//
// Each iteration a different node publishes a new card. Reported (medians
// over the iterations): the time to reach 95 % and 100 % of the other
// nodes (ms-95%, ms-100%); the lower bound on the connection graph at
// that moment, the fastest path's delay from the publisher to the
// farthest node (bound-ms), with its hop distance (hops) and hops times
// the mean latency (hops-x-mean-ms); 100%/bound, whose goal is 1.5 or
// less; mesh-bound-ms, the same delay over the paths GossipSub sends a
// card along (the publisher's connections, then the mesh) with no time
// spent in nodes; ms-100%-over-mesh, 100 % less mesh-bound (card by
// card), the time the card spent in nodes along the way; mesh-95-ms and
// ms-95%-over-mesh, the same two at the 95th percentile of the nodes;
// ms-hop1-excess, how much later than one link latency the publisher's
// direct neighbours receive the card, the time a hop spends in the
// simulation itself; and cpu-cores, the cores the process used
// meanwhile (the set-up's garbage is collected before the first card;
// -wan.cpuprofile profiles the same span). Then -wan.gets DHT gets of cards put by 20 nodes report
// p50 and p99 beside log2(N) round trips of the mean link
// (dht-bound-ms); goal: p99 within 3 x dht-bound-ms.
//
// At 500 nodes, 5 cards, on 2 cores (load average 1.5 to 3; set-up 60 to
// 80 s, peak RSS 4.4 to 5.2 GB, about 40 connections a node, 3 hops from
// publisher to farthest node; all times in ms):
//
//	seed  95 %  100 %  bound  100%/bound  hops-x-mean  100%/hops-x-mean  mesh-bound    DHT p50  p99 (goal 2,690)
//	1     166   189    102    1.85        150          1.26              171 (1.67x)   332      503
//	2     180   204    108    1.89        150          1.36              169 (1.57x)   433      1,507
//	3     172   202    110    1.84        150          1.35              178 (1.62x)   336      497
//
// Against the bound as it is written, hop distance times the
// link latency (the mean of the range), a card reaches every node within
// 1.26 to 1.36 times it. Against the fastest path's delay, which picks the
// quickest of a node's 40 links at every hop, it takes 1.84 to 1.89
// times, and no GossipSub deployment can do much better: a card travels
// the publisher's links, then only the mesh (D 6 of those 40), whose own
// fastest paths are already 1.57 to 1.67 times it (mesh-bound). The
// measured 100 % is 1.11 to 1.20 times mesh-bound, the time nodes spend
// validating and relaying in a process that uses 1.1 to 1.4 cores. A
// mesh of D 12 (-wan.d 12, seed 1) brings mesh-bound to 139 ms (1.37x)
// but the process then needs 1.8 cores and 100 % rises to 276 ms.
//
// With one latency on every link (-wan.minlat 50ms -wan.maxlat 50ms), the
// fastest path and hop distance times the link latency are the same bound:
// 3 hops, 150 ms. Seeds 1 to 3 (5 cards, 1.28 to 1.32 cores): 95 % in
// 233 to 238 ms, 100 % in 252 to 259 ms (1.68 to 1.73 x), mesh-bound 200
// ms (1.33 x: the mesh needs a fourth hop for the last nodes), DHT get
// p99 609 to 628 ms. So the goal of 1.5 x is not met under this bound
// either: GossipSub's paths take a third more than the shortest, and the
// 13 to 15 ms each of the four hops spends in a process that runs 500
// nodes on 2 cores (hop-1 excess 7 to 11 ms) take the rest. (Two later
// runs of seed 1 took 241 and 262 ms, 1.61 and 1.75 x, and two more
// of 10 cards 237 and 269 ms, 1.58 and 1.79 x.) That time in the nodes is
// not the gossip of the card before: with a pause of 5 s between cards
// (-wan.gap 5s), so that each spreads through a network that has done
// with the last one, two runs took 260 and 250 ms.
//
// That time in the nodes does not grow with the links. With links four
// times as long (-wan.minlat 200ms -wan.maxlat 200ms, seeds 1 to 3), 100 %
// took 831 to 864 ms against a bound of 600 ms (1.38 to 1.44 x) and a
// mesh-bound of 800 ms: 31 to 64 ms over mesh-bound, as at 50 ms (41 to
// 62), with hop-1 excess 9 to 11 ms. With 100 ms links (seed 1): 468 ms
// against 300 (1.56 x) and mesh-bound 400. With 80 to 320 ms links (seed
// 1): 687 ms against a fastest path of 409 ms (1.68 x) and mesh-bound 678
// ms (1.66 x). So the process adds a fixed 30 to 70 ms, the CPU of 500
// nodes' validation and relaying queued on 2 cores, and the rest is the
// mesh's own: a fourth hop under one latency (1.33 x), and paths 1.57 to
// 1.68 times the fastest over mixed latencies. A CPU profile of the 50 ms
// runs taken only while cards spread (seed 1, 25 cards) gives 0.26 s of
// CPU a card, 0.5 ms a node: GossipSub's message signature check 10 %,
// its peer score 9 %, the simulated links (wanStream and mocknet's
// streams) 17 %, the card check 3 %, and most of the rest pubsub's
// goroutines and channels.
//
// Two later changes took CPU out of the process without changing that
// picture: gossip's repair round no longer lists every connection each
// second (it was 7.5 % of the CPU while cards spread and 16 % between
// them), and wanStream schedules its deliveries on timers instead of
// parking a goroutine a burst (its share fell from 10.5 to 3.7 %). In
// alternating runs (seeds 1 and 2, 50 ms) cpu-cores fell from 1.35 and
// 1.62 to 1.12 and 1.21. Then, 10 cards each: at 50 ms 100 % in 241 to
// 259 ms (seeds 1 to 3, 1.61 to 1.73 x, 41 to 59 ms over mesh-bound); at
// 20 to 80 ms 199 to 210 ms (1.33 to 1.40 x hops times the mean, 1.93
// to 2.01 x the fastest path). That is within the spread of the runs
// before: what stays over mesh-bound is pubsub's own work (its
// signature check, peer score and event loop), and adpnode's code
// (validator, delivery, repair) is 4 % of the CPU in the same profile.
// A wider mesh shows the same trade. With -wan.d 10 mesh-bound is the
// bound itself (3 hops), and at 200 ms links 100 % took 757 and 736 ms
// (seeds 1 and 2, 1.26 and 1.23 x; D 6: 851 ms, 1.42 x), but each wave
// then queues more copies on the 2 cores (90 to 122 ms over
// mesh-bound), and at 50 ms (seed 1: 290 ms, 1.94 x) and 20 to 80 ms
// (seed 1: 215 ms, 1.43 x hops times the mean) it gains nothing here, so
// gossip keeps go-libp2p-pubsub's D of 6.
//
// Where that time in the nodes is spent shows at the 95th percentile. At
// 50 ms (20 cards, seeds 1 and 2) 95 % of the nodes are 3 mesh hops from
// the publisher (mesh-95-ms 150), yet 95 % took 210 and 226 ms: 60 and 75
// ms over mesh, more than at 100 % (42 and 50 ms; 100 % took 242 and 251
// ms, 1.61 and 1.67 x). The third wave, some 300 nodes that receive the
// card within the same millisecond, queues its validation and relaying
// on the 2 cores, and the fourth hop's few nodes wait behind it. So a
// mesh with no fourth hop would still take 210 to 225 ms here, and a
// wider one that would remove it (-wan.d 8: mesh-bound still 200 ms, 95 %
// over mesh 94 and 78 ms, 100 % in 261 and 243 ms) queues more. With 20
// to 80 ms links (seed 1) the waves spread over the range of latencies:
// 95 % over mesh 24 ms, 100 % in 191 ms (1.27 x hops times the mean, 1.81
// x the fastest path).
//
// Before two changes, 100 % took 224 to 267 ms (2.1 to 2.7 x bound) on
// the same seeds. Flood publishing: go-libp2p-pubsub sends a
// node's own message to its mesh only unless told otherwise, so most of
// the publisher's neighbours got the card a hop later (ms-hop1-excess
// was 102 to 110 ms; with gossip's flood publishing it is 2 to 3 ms).
// And the links: with mocknet's own link latency (-wan.links mocknet) a
// stream delivers one write at a time, so a write made while the one
// before it is on the link waits for its arrival (the third of three
// 1,000-byte writes on a 50 ms link arrives after 100 ms, where TCP
// pipelines it); wanStream delays each write by its latency from the
// moment it was made. Once flood publishing was on, the two models gave
// about the same (seed 1 with mocknet's links: 100 % 202 ms, mesh-bound
// 179 ms, DHT p99 672 ms), since a card seldom queues behind another
// message.
//
// Nor is it the Go collector. At 500 nodes the set-up leaves a heap of
// 2.6 GB, and the stacks of 186,000 goroutines count towards the
// collector's goal, so a cycle may fall among the cards (in two of three
// profiled runs of 20 cards at 50 ms, seed 1, a quarter of the CPU went
// to it, most of it marking on idle cores). The benchmark collects the
// set-up's garbage before the first card. With the collector then off
// while cards spread (-wan.gc=false), 100 % took 248 and 237 ms, and in
// the runs alternating with them, with it on, 253 and 256 ms (1.58 to
// 1.71 x): within the spread of runs. Of the CPU that the collector
// leaves in such a profile (-wan.cpuprofile), pubsub's event loop takes
// 38 % (11 % in the select at its top), its peer score 10 %, its
// signature check 9 %, its heartbeat 7 %, its stream reads and writes
// 12 %, the simulated links 10 %, the benchmark's bound between cards 6
// %, and adpnode's validator and repair round 4 %.
//
// Under other work the runs degrade with the CPU the process gets, not
// with the network: before these changes, at load 5 to 17 (0.33 to 0.70
// of a core), 100 % took 658 to 1,784 ms while mesh-bound stayed at 171
// to 185 ms, set-up took 2 to 4 min, and one DHT p99 reached 6,971 ms
// (2.6x its goal). At 1,000 nodes (seed 1, 3 cards, load below 1;
// set-up 2 min 33 s, peak RSS 9.4 GB, 41 connections a node, 3 hops):
// 95 % in 521 ms, 100 % in 646 ms against a bound of 114 ms (5.7x) and
// hops x mean of 150 ms (4.3x), mesh-bound 206 ms (1.81x), with the
// process using 1.83 of the 2 cores: at this size the simulation is
// bound by the CPU, not by the network. DHT get p50 395 ms, p99 635 ms
// against a goal of 2,990 ms (before the two changes: 1,273 and 5,683
// ms, at load 4 to 8).
//
// TestWANVirtualTime runs this network on the clock of a synctest bubble,
// where a node's work takes no time. At 500 nodes a card then reaches
// every node in 1.22 to 1.43 times the fastest path with 20 to 80 ms
// links (seeds 1 to 3), and in 1.33 times it at 50 and 200 ms, each node
// exactly when the publisher's links and the mesh bring it (mesh-bound).
// What this benchmark measures beyond mesh-bound is the nodes' work
// queued on the machine's cores.
//
// It is a benchmark, not a timed test: it asserts only that every card
// arrives and every get answers.
func BenchmarkWAN(b *testing.B) {
	n := *wanNodes
	w := newWANNet(b, n, *wanDegree, *wanSeed)
	meanLat := (*wanMinLat + *wanMaxLat) / 2

	var p95s, p100s, bounds, hopBounds, meshBounds, overMesh, mesh95s, overMesh95 []time.Duration
	var hopsSeen []int
	var excess []time.Duration          // arrival at a direct neighbour of the publisher, less the link's latency
	var cpuUsed, wallUsed time.Duration // outside the pauses
	// The set-up's garbage (half of a 2.6 GB heap at 500 nodes) is
	// collected now, not by a cycle that would mark it while cards spread.
	runtime.GC()
	gcPercent := 100
	if !*wanGC {
		gcPercent = debug.SetGCPercent(-1)
	}
	if *wanProf != "" {
		f, err := os.Create(*wanProf)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile() // if a card fails to spread
	}
	cpu0, wall0 := cpuTime(), time.Now()
	i := 0
	for b.Loop() {
		if i > 0 && *wanGap > 0 {
			b.StopTimer()
			cpuUsed, wallUsed = cpuUsed+cpuTime()-cpu0, wallUsed+time.Since(wall0)
			time.Sleep(*wanGap)
			cpu0, wall0 = cpuTime(), time.Now()
			b.StartTimer()
		}
		k := (i * 97) % n
		i++
		sp := w.spread(b, k, uint64(i))
		excess = append(excess, sp.excess...)
		p95s, p100s = append(p95s, sp.p95), append(p100s, sp.p100)
		bounds, hopBounds, hopsSeen = append(bounds, sp.bound), append(hopBounds, time.Duration(sp.hops)*meanLat), append(hopsSeen, sp.hops)
		meshBounds = append(meshBounds, sp.mesh100)
		overMesh = append(overMesh, sp.p100-sp.mesh100)
		mesh95s, overMesh95 = append(mesh95s, sp.mesh95), append(overMesh95, sp.p95-sp.mesh95)
	}
	b.ReportMetric(ms(median(p95s)), "ms-95%")
	b.ReportMetric(ms(median(p100s)), "ms-100%")
	b.ReportMetric(ms(median(bounds)), "bound-ms")
	b.ReportMetric(float64(slices.Max(hopsSeen)), "hops")
	b.ReportMetric(ms(median(hopBounds)), "hops-x-mean-ms")
	b.ReportMetric(float64(median(p100s))/float64(median(bounds)), "100%/bound")
	b.ReportMetric(ms(median(excess)), "ms-hop1-excess")
	b.ReportMetric(ms(median(meshBounds)), "mesh-bound-ms")
	b.ReportMetric(ms(median(overMesh)), "ms-100%-over-mesh")
	b.ReportMetric(ms(median(mesh95s)), "mesh-95-ms")
	b.ReportMetric(ms(median(overMesh95)), "ms-95%-over-mesh")
	cpuUsed, wallUsed = cpuUsed+cpuTime()-cpu0, wallUsed+time.Since(wall0)
	b.ReportMetric(float64(cpuUsed)/float64(wallUsed), "cpu-cores")
	b.ReportMetric(w.connsPerNode(), "conns/node")
	if *wanProf != "" {
		pprof.StopCPUProfile()
	}
	if !*wanGC {
		debug.SetGCPercent(gcPercent)
	}

	// DHT gets.
	b.StopTimer()
	lat := w.dhtGets(b, *wanGets, *wanSeed)
	dhtBound := time.Duration(math.Log2(float64(n)) * float64(2*meanLat))
	b.ReportMetric(ms(lat[len(lat)/2]), "dht-ms-p50")
	b.ReportMetric(ms(percentile(lat, 99)), "dht-ms-p99")
	b.ReportMetric(ms(dhtBound), "dht-bound-ms")
	b.ReportMetric(float64(percentile(lat, 99))/float64(3*dhtBound), "dht-p99/goal")
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile returns the p-th percentile of sorted (not empty), by the
// nearest rank: the least value that p % of them do not exceed.
func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)*p+99)/100-1]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
