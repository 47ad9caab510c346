package node_test

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/store"
)

var (
	adversarialDuration   = flag.Duration("adversarial.duration", 8*time.Second, "length of TestAdversarial's flood (a quarter with one attacker identity, the rest with fresh identities)")
	adversarialIdentities = flag.Int("adversarial.identities", 10_000, "fresh attacker identities TestAdversarial mints at most")
)

// Bounds of TestAdversarial.
const (
	advMaxCards  = 2_000 // the directory's --max-cards: a network's share is 200
	advHonest    = 10    // honest agents, each from its own /24
	advClients   = 8     // honest discovery clients, each from its own /24
	advInterval  = 250 * time.Millisecond
	advHeapBound = 256 << 20 // heap in use of the directory's process (it holds the honest clients too; the attacker runs apart)
	advWorkers   = 16        // goroutines minting fresh identities
	advP99Factor = 2.0
)

// honestWords name the honest agents: one word each that no other card
// carries, so a discovery for it must find that agent.
var honestWords = []string{"aardvark", "bison", "capybara", "dingo", "echidna", "fennec", "gazelle", "hyrax", "ibex", "jerboa"}

// TestAdversarial floods a directory peer, in-process over loopback TCP,
// through its real intake: one attacker identity, then up to
// -adversarial.identities fresh identities from one address, push valid
// cards with adp.advertise and ask adp.discover, for
// -adversarial.duration. Honest agents advertised before the flood, from
// networks of their own; honest clients ask for them all along. It checks
// that every honest card is still held and found, that honest discovery's
// p99 stays within 2x its quiet value (measured first, in this test; only
// in runs of a minute or more, whose phases are long enough for a p99 that
// other work on the machine does not sway: the short default run of CI,
// beside other packages' tests, logs it), that
// the attacker sees BUSY, that the attacker's new agents hold at most
// their network's share of the store, and that the process heap stays
// under advHeapBound.
func TestAdversarial(t *testing.T) {
	d := *adversarialDuration
	dir := startNode(t, testNode{name: "Directory", directory: true, noAPI: true, maxCards: advMaxCards, chargeLoopback: true})
	dirInfo := peer.AddrInfo{ID: dir.PeerID(), Addrs: dir.Addrs()}

	var honest []*adp.Card
	for i, word := range honestWords[:advHonest] {
		cl, sk := advClient(t, fmt.Sprintf("127.0.%d.1", 10+i), dirInfo)
		c := advCard(t, sk, "honest "+word, "Finds the "+word+" in any picture.")
		if _, err := service.Advertise(t.Context(), cl, dir.PeerID(), c); err != nil {
			t.Fatalf("honest advertise: %v", err)
		}
		honest = append(honest, c)
	}
	var mem memWatch
	stopMem := mem.start()
	defer stopMem()

	// Honest discovery, quiet then under attack, by clients of their own
	// networks, each within its rate limit.
	lat := &latencies{}
	phase := atomic.Int32{} // 0 quiet, 1 one attacker identity, 2 fresh identities
	cctx, stopClients := context.WithCancel(t.Context())
	var cwg sync.WaitGroup
	for i := range advClients {
		cl, _ := advClient(t, fmt.Sprintf("127.0.%d.1", 50+i), dirInfo)
		cwg.Go(func() { lat.run(cctx, t, cl, dir.PeerID(), honest, i, &phase) })
	}
	waitFor(t.Context(), d/4)
	phase.Store(1)
	st := runAttacker(t, dirInfo, d, func() { phase.Store(2) })
	stopClients()
	cwg.Wait()
	stopMem()

	quiet, flood := lat.p99(0), lat.p99(1, 2)
	held := heldCards(t, dir)
	attackerHeld := 0
	for _, r := range held {
		if strings.HasPrefix(r.Card.Name, "sybil") || r.Card.Name == "attacker" {
			attackerHeld++
		}
	}
	t.Logf("duration %v: identities minted %d (connections refused %d); advertise %d calls, %d BUSY; discover %d calls, %d BUSY; other failures %d (%s)",
		d, st.Minted, st.Refused, st.Adv, st.AdvBusy, st.Disc, st.DiscBusy, st.Other, st.FirstOther)
	t.Logf("directory holds %d cards, %d of the attacker's (share %d); honest discovery p99 quiet %v (%d samples), under attack %v (%d samples; one identity %v, fresh identities %v), %d misses; heap in use max %d MiB, RSS max %d MiB",
		len(held), attackerHeld, advMaxCards/10, quiet, lat.count(0), flood, lat.count(1, 2), lat.p99(1), lat.p99(2), lat.misses.Load(), mem.heap.Load()>>20, mem.rss.Load()>>20)

	for _, c := range honest {
		if _, ok := held[c.ID]; !ok {
			t.Errorf("honest card %q lost", c.Name)
		}
	}
	found(t, dir, honest, dirInfo)
	if lat.misses.Load() > 0 {
		t.Errorf("%d honest discoveries missed their agent", lat.misses.Load())
	}
	if lat.count(0) == 0 || lat.count(1, 2) == 0 {
		t.Fatalf("no honest discovery measured: quiet %d, flood %d", lat.count(0), lat.count(1, 2))
	}
	if float64(flood) > advP99Factor*float64(quiet) && d < time.Minute {
		t.Logf("honest discovery p99 under attack %v, more than %.0fx its quiet %v (asserted only in runs of a minute or more)", flood, advP99Factor, quiet)
	} else if float64(flood) > advP99Factor*float64(quiet) {
		t.Errorf("honest discovery p99 under attack %v, more than %.0fx its quiet %v", flood, advP99Factor, quiet)
	}
	if st.AdvBusy == 0 || st.DiscBusy == 0 {
		t.Errorf("the attacker never saw BUSY: advertise %d, discover %d", st.AdvBusy, st.DiscBusy)
	}
	if st.Other > 0 {
		t.Errorf("the attacker saw %d failures other than BUSY and refused connections: %s", st.Other, st.FirstOther)
	}
	if attackerHeld > advMaxCards/10+1 { // the phase-1 identity's card, from another /24
		t.Errorf("the directory holds %d attacker cards, more than one network's share %d", attackerHeld, advMaxCards/10)
	}
	if h := mem.heap.Load(); h > advHeapBound {
		t.Errorf("heap in use reached %d MiB, over %d MiB", h>>20, advHeapBound>>20)
	}
}

// advClientOpts starts a host listening on ip (so it dials from ip),
// connects it to the directory and returns its client and key.
func advClientOpts(t *testing.T, ip string, dir peer.AddrInfo, opts ...aitp.ClientOption) (*aitp.Client, crypto.PrivKey) {
	t.Helper()
	h, sk, err := advHost(t.Context(), ip, dir)
	if err != nil {
		t.Fatal(err)
	}
	cl := aitp.NewClient(h, opts...)
	t.Cleanup(func() { cl.Close(); h.Close() })
	return cl, sk
}

func advClient(t *testing.T, ip string, dir peer.AddrInfo) (*aitp.Client, crypto.PrivKey) {
	t.Helper()
	return advClientOpts(t, ip, dir)
}

func advHost(ctx context.Context, ip string, dir peer.AddrInfo) (host.Host, crypto.PrivKey, error) {
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	h, err := p2phost.New(sk, p2phost.WithListen("/ip4/"+ip+"/tcp/0"))
	if err != nil {
		return nil, nil, err
	}
	if err := h.Connect(ctx, dir); err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, sk, nil
}

func advCard(t testing.TB, sk crypto.PrivKey, name, description string) *adp.Card {
	t.Helper()
	c := &adp.Card{
		Name:        name,
		Description: description,
		Skills:      []string{"vision/ocr"},
		Tools:       []adp.Tool{{Name: "run", Description: description}},
		Endpoints:   []adp.Endpoint{{Protocol: "aitp", URI: "agent://self"}},
	}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}

// latencies records honest discovery round trips by phase.
type latencies struct {
	mu     sync.Mutex
	byPh   [3][]time.Duration
	misses atomic.Int64
}

// run asks, every advInterval, for honest agent i, i+1, ... and records
// the round trip under the current phase.
func (l *latencies) run(ctx context.Context, t *testing.T, cl *aitp.Client, dir peer.ID, honest []*adp.Card, i int, phase *atomic.Int32) {
	tick := time.NewTicker(advInterval)
	defer tick.Stop()
	for k := i; ; k++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		want := honest[k%len(honest)]
		ph := phase.Load()
		start := time.Now()
		resp, err := service.Discover(ctx, cl, dir, &adp.DiscoverRequest{Query: honestWords[k%len(honest)]})
		took := time.Since(start)
		if over(ctx) {
			return
		}
		if err != nil {
			t.Errorf("honest discovery: %v", err)
			return
		}
		if !slices.ContainsFunc(resp.Results, func(r adp.DiscoverResult) bool { return r.ID == want.ID }) {
			l.misses.Add(1)
		}
		l.mu.Lock()
		l.byPh[ph] = append(l.byPh[ph], took)
		l.mu.Unlock()
	}
}

func (l *latencies) count(phases ...int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ph := range phases {
		n += len(l.byPh[ph])
	}
	return n
}

// p99 is the nearest-rank 99th percentile of the phases.
func (l *latencies) p99(phases ...int) time.Duration {
	l.mu.Lock()
	var s []time.Duration
	for _, ph := range phases {
		s = append(s, l.byPh[ph]...)
	}
	l.mu.Unlock()
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1]
}

// memWatch samples the process's heap in use and RSS, keeping the maxima.
type memWatch struct {
	heap, rss atomic.Uint64
}

func (m *memWatch) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.heap.Store(max(m.heap.Load(), ms.HeapInuse))
			m.rss.Store(max(m.rss.Load(), rss()))
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}

// rss reads VmRSS from /proc/self/status (0 where there is none).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// waitFor blocks for d or until ctx ends: the quiet phase is a length of
// time to measure, not a condition to poll for.
func waitFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func heldCards(t *testing.T, n *node.Node) map[string]*store.Record {
	t.Helper()
	recs, err := n.Cards(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*store.Record, len(recs))
	for _, r := range recs {
		out[r.AgentID] = r
	}
	return out
}

// found asks the directory, from a fresh honest client, for each honest
// agent by its word and fails for any not in the results.
func found(t *testing.T, dir *node.Node, honest []*adp.Card, info peer.AddrInfo) {
	t.Helper()
	cl, _ := advClient(t, "127.0.99.1", info)
	for i, c := range honest {
		resp, err := service.Discover(t.Context(), cl, dir.PeerID(), &adp.DiscoverRequest{Query: honestWords[i]})
		if err != nil {
			t.Fatalf("discover %s: %v", honestWords[i], err)
		}
		if !slices.ContainsFunc(resp.Results, func(r adp.DiscoverResult) bool { return r.ID == c.ID }) {
			t.Errorf("honest agent %q not found after the flood", c.Name)
		}
	}
}
