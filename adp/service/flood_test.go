package service_test

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/internal/ratelimit"
)

// floodDuration bounds each phase of TestFloodIsBounded; raise it with
// -flood=60s for a long run.
var floodDuration = flag.Duration("flood", 3*time.Second, "duration of each phase of the adversarial flood test")

// heldSink keeps advertised cards by agent id, as a directory's store
// does, and answers discovery from them.
type heldSink struct {
	mu    sync.Mutex
	cards map[string]*adp.Card
}

func (s *heldSink) AdvertisedCard(_ context.Context, c *adp.Card, _ peer.ID) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cards[c.ID] = c
	return true, nil
}

func (s *heldSink) Discover(_ context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp := &adp.DiscoverResponse{}
	for id := range s.cards {
		resp.Results = append(resp.Results, adp.DiscoverResult{ID: id})
		if len(resp.Results) >= 10 {
			break
		}
	}
	return resp, nil
}

func (s *heldSink) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cards[id] != nil
}

func (s *heldSink) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cards)
}

// floodHost is a loopback host listening (and so dialing) from ip.
func floodHost(t *testing.T, ip string) (host.Host, crypto.PrivKey) {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2phost.New(sk, p2phost.WithListen("/ip4/"+ip+"/tcp/0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, sk
}

// hostile is a client that ignores failures: its breaker never opens.
var hostile = aitp.WithBreaker(1<<30, time.Millisecond)

// floodStats counts one attacker's calls by outcome.
type floodStats struct {
	calls, ok, busy, other atomic.Int64
	retryAfterMissing      atomic.Int64
	firstOther             atomic.Value // string
}

func (s *floodStats) record(err error) {
	s.calls.Add(1)
	var e *aitp.Error
	switch {
	case err == nil:
		s.ok.Add(1)
	case errors.As(err, &e) && e.Status == aitp.StatusBusy && e.Code == aitp.CodeRateLimited:
		s.busy.Add(1)
		if e.RetryAfter < 1 {
			s.retryAfterMissing.Add(1)
		}
	default:
		if s.other.Add(1) == 1 {
			s.firstOther.Store(err.Error())
		}
	}
}

// flood calls adp.advertise with card and adp.discover on dir from cl
// until ctx ends.
func flood(ctx context.Context, cl *aitp.Client, dir peer.ID, card *adp.Card, adv, disc *floodStats) {
	for !over(ctx) {
		_, err := service.Advertise(ctx, cl, dir, card)
		if over(ctx) {
			return
		}
		adv.record(err)
		_, err = service.Discover(ctx, cl, dir, &adp.DiscoverRequest{Query: "translate"})
		if over(ctx) {
			return
		}
		disc.record(err)
	}
}

// over reports whether ctx has ended or its deadline has passed. A call
// made just before the deadline carries what is left of it, rounded up,
// and the directory answers TIMEOUT once that has passed; on a loaded
// machine that answer can arrive before ctx's own timer has fired, and
// it is the call's deadline, not a failure.
func over(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// TestFloodIsBounded: one attacker identity, then many fresh identities
// from one address, flood a directory peer with valid cards, advertise
// calls and discovery requests. The attacker sees BUSY with retry_after;
// the cards the directory accepts stay within the network's budget
// (burst plus rate times duration), not the attack's volume; every
// honest card held before is still held; an honest peer from another
// network still advertises and discovers.
func TestFloodIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("adversarial flood")
	}
	limits := ratelimit.Config{
		Peer:    ratelimit.Rate{PerSecond: 2, Burst: 5},
		Network: ratelimit.Rate{PerSecond: 10, Burst: 20},
	}
	m, err := ratelimit.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	adv := ratelimit.NewGuard(ratelimit.GuardAdvertise, limits, m, nil)
	disc := ratelimit.NewGuard(ratelimit.GuardDiscover, limits, m, nil)

	dirHost, dirKey := floodHost(t, "127.0.0.1")
	sink := &heldSink{cards: map[string]*adp.Card{}}
	srv, err := aitp.NewServer(dirHost)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dirCard := methodsCard(t, dirKey, "directory")
	service.New(service.CardSourceFunc(func() *adp.Card { return dirCard }),
		service.WithCardSink(sink), service.WithDiscoverer(sink),
		service.WithAdvertiseLimit(adv), service.WithDiscoverLimit(disc)).Register(srv)
	dirInfo := peer.AddrInfo{ID: dirHost.ID(), Addrs: dirHost.Addrs()}

	// Honest agents, from their own networks (127.0.N.1), advertise first.
	var honest []string
	for i := range 5 {
		h, sk := floodHost(t, fmt.Sprintf("127.0.%d.1", 10+i))
		if err := h.Connect(t.Context(), dirInfo); err != nil {
			t.Fatal(err)
		}
		cl := aitp.NewClient(h)
		t.Cleanup(func() { cl.Close() })
		c := methodsCard(t, sk, fmt.Sprintf("honest-%d", i))
		if _, err := service.Advertise(t.Context(), cl, dirHost.ID(), c); err != nil {
			t.Fatal(err)
		}
		honest = append(honest, c.ID)
	}
	before := sink.len()

	// Phase 1: one attacker identity, from 127.0.200.1.
	var advStats, discStats floodStats
	attacker, ask := floodHost(t, "127.0.200.1")
	if err := attacker.Connect(t.Context(), dirInfo); err != nil {
		t.Fatal(err)
	}
	// A hostile client has no circuit breaker: it never backs off.
	acl := aitp.NewClient(attacker, hostile)
	t.Cleanup(func() { acl.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), *floodDuration)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { flood(ctx, acl, dirHost.ID(), methodsCard(t, ask, "attacker"), &advStats, &discStats) })
	}
	wg.Wait()
	cancel()

	// Phase 2: fresh identities, all from 127.0.201.1 (one address),
	// connected first so that the flood's time is spent flooding.
	const fresh = 25
	type sybil struct {
		cl   *aitp.Client
		card *adp.Card
	}
	var sybils []sybil
	for i := range fresh {
		h, sk := floodHost(t, "127.0.201.1")
		if err := h.Connect(t.Context(), dirInfo); err != nil {
			t.Fatal(err)
		}
		cl := aitp.NewClient(h, hostile)
		t.Cleanup(func() { cl.Close() })
		sybils = append(sybils, sybil{cl, methodsCard(t, sk, fmt.Sprintf("sybil-%d", i))})
	}
	ctx, cancel = context.WithTimeout(t.Context(), *floodDuration)
	start := time.Now()
	for _, s := range sybils {
		wg.Go(func() { flood(ctx, s.cl, dirHost.ID(), s.card, &advStats, &discStats) })
	}
	wg.Wait()
	cancel()
	phase2 := time.Since(start)

	// An honest peer from another network is still served.
	h, sk := floodHost(t, "127.0.30.1")
	if err := h.Connect(t.Context(), dirInfo); err != nil {
		t.Fatal(err)
	}
	cl := aitp.NewClient(h)
	t.Cleanup(func() { cl.Close() })
	late := methodsCard(t, sk, "honest-late")
	if _, err := service.Advertise(t.Context(), cl, dirHost.ID(), late); err != nil {
		t.Fatalf("honest advertise during the attack's aftermath: %v", err)
	}
	if _, err := service.Discover(t.Context(), cl, dirHost.ID(), &adp.DiscoverRequest{Query: "translate"}); err != nil {
		t.Fatalf("honest discover: %v", err)
	}

	for _, id := range honest {
		if !sink.has(id) {
			t.Errorf("honest card %s lost", id)
		}
	}
	attackCards := sink.len() - before - 1
	// Phase 1 is one identity (one card, replaced); phase 2's cards are
	// bounded by the 127.0.201.0/24 budget: burst plus rate times time.
	bound := 1 + int(limits.Network.Burst+limits.Network.PerSecond*phase2.Seconds()) + 1
	t.Logf("advertise: %d calls, %d admitted, %d BUSY, %d other; discover: %d calls, %d admitted, %d BUSY, %d other; attacker cards held %d (bound %d); refusals peer %v network %v",
		advStats.calls.Load(), advStats.ok.Load(), advStats.busy.Load(), advStats.other.Load(),
		discStats.calls.Load(), discStats.ok.Load(), discStats.busy.Load(), discStats.other.Load(),
		attackCards, bound,
		counterValue(t, m.Counter(ratelimit.GuardAdvertise, ratelimit.ScopePeer)),
		counterValue(t, m.Counter(ratelimit.GuardAdvertise, ratelimit.ScopeNetwork)))
	if advStats.busy.Load() == 0 || discStats.busy.Load() == 0 {
		t.Error("the attacker never saw BUSY")
	}
	if n := advStats.retryAfterMissing.Load() + discStats.retryAfterMissing.Load(); n > 0 {
		t.Errorf("%d BUSY answers without retry_after", n)
	}
	if advStats.other.Load()+discStats.other.Load() > 0 {
		t.Errorf("unexpected failures: %d advertise (%v), %d discover (%v)", advStats.other.Load(), advStats.firstOther.Load(), discStats.other.Load(), discStats.firstOther.Load())
	}
	if attackCards > bound {
		t.Errorf("the directory accepted %d attacker cards, want at most %d", attackCards, bound)
	}
	if got := counterValue(t, m.Counter(ratelimit.GuardAdvertise, ratelimit.ScopeNetwork)); got == 0 {
		t.Error("no network-scope refusal counted: fresh identities from one address were not charged together")
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
