package gossip_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestCardReachesAll20 publishes a card from one of 20 nodes on a ring, so
// it must be relayed up to ten hops, and waits for every node to hold it;
// on mocknet and on loopback TCP.
func TestCardReachesAll20(t *testing.T) {
	for _, tr := range []p2pnet.Transport{p2pnet.Mocknet, p2pnet.TCP} {
		t.Run(tr.String(), func(t *testing.T) { testCardReachesAll(t, tr, 20) })
	}
}

func testCardReachesAll(t *testing.T, tr p2pnet.Transport, n int) {
	nw := newNet(t, n, p2pnet.Ring, p2pnet.WithTransport(tr))
	nodes := startNodes(t, nw, 0, n)
	waitMeshed(t, nodes)

	owner := nodes[7]
	card := cardtest.Signed(t, owner.sk, 1, "seven", "nlp/translation")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := owner.g.Publish(ctx, card); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 15*time.Second, "card at all 19 other nodes", func() bool {
		for _, n := range nodes {
			if n != owner && n.store.seq(owner.agent()) != 1 {
				return false
			}
		}
		return true
	})
	for i, n := range nodes {
		if n == owner {
			if len(n.store.deliveries()) != 0 {
				t.Errorf("owner's own card was delivered back to it")
			}
			continue
		}
		got := n.store.held(owner.agent())
		if !bytes.Equal(got.Raw(), card.Raw()) {
			t.Errorf("node %d holds other bytes", i)
		}
		if s := n.g.Stats(); s.Accepted != 1 || s.Rejected != 0 {
			t.Errorf("node %d stats %+v, want one accepted", i, s)
		}
	}
}

// TestBadCardsStopAtFirstHop has an attacker, running GossipSub without
// the card validator, connected to node 0 of a line of six. Node 0 must
// refuse a forged card, a card of another agent, a replayed older card, an
// oversized and a malformed message; no node may deliver them, and nodes
// past node 0 must never even see them.
func TestBadCardsStopAtFirstHop(t *testing.T) {
	const good = 6
	nw := newNet(t, good+1, p2pnet.Unconnected)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range good - 1 {
		if err := nw.Connect(ctx, i, i+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := nw.Connect(ctx, good, 0); err != nil { // the attacker
		t.Fatal(err)
	}
	reasons := &reasonRecorder{}
	scores := &scoreWatch{}
	all := append(startNodes(t, nw, 0, 1, gossip.WithMetrics(reasons),
		gossip.PubSubOptions(pubsub.WithPeerScoreInspect(scores.inspect, 10*time.Millisecond))),
		startNodes(t, nw, 1, good)...)
	attacker, _ := nw.Host(good)
	attackerKey, _ := nw.Key(good)

	// The attacker's router: StrictSign (its messages carry a valid
	// publisher signature) and no validator.
	psCtx, psCancel := context.WithCancel(context.Background())
	ps, err := pubsub.NewGossipSub(psCtx, attacker)
	if err != nil {
		t.Fatal(err)
	}
	topic, err := ps.Join(gossip.Topic)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := topic.Subscribe() // so node 0 counts it as a topic peer
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sub.Cancel()
		psCancel()
	})
	waitMeshed(t, all)
	polltest.For(t, 10*time.Second, "attacker sees node 0 on the topic", func() bool { return len(topic.ListPeers()) == 1 })

	publish := func(data []byte) {
		t.Helper()
		if err := topic.Publish(ctx, data); err != nil {
			t.Fatal(err)
		}
	}
	attackerID := adp.AgentID(attacker.ID())
	waitSeq := func(seq uint64) {
		t.Helper()
		polltest.For(t, 15*time.Second, "attacker's own card everywhere", func() bool {
			for _, n := range all {
				if n.store.seq(attackerID) != seq {
					return false
				}
			}
			return true
		})
	}

	// The attacker's own, valid card goes everywhere.
	v1 := cardtest.Signed(t, attackerKey, 1, "mallory")
	v2 := cardtest.Signed(t, attackerKey, 2, "mallory")
	publish(v2.Raw())
	waitSeq(2)

	victim := all[3]
	victimCard := cardtest.Signed(t, victim.sk, 5, "victim")
	bad := map[string][]byte{
		"forged":      cardtest.Tamper(t, cardtest.Signed(t, attackerKey, 9, "mallory").Raw(), "mallory", "mallorz"),
		"third party": victimCard.Raw(),
		"replay":      v1.Raw(),
		"oversized":   []byte(`{"name":"` + strings.Repeat("x", adp.MaxCardSize) + `"}`),
		"malformed":   []byte("{not json"),
	}
	for _, data := range bad {
		publish(data)
	}
	// A valid card published after them: once everyone has it, node 0 has
	// judged the bad ones.
	v3 := cardtest.Signed(t, attackerKey, 3, "mallory")
	publish(v3.Raw())
	waitSeq(3)
	polltest.For(t, 5*time.Second, "node 0 judged every message", func() bool {
		s := all[0].g.Stats()
		return s.Accepted+s.Rejected+s.Ignored == 2+uint64(len(bad))
	})

	if s := all[0].g.Stats(); s.Rejected != 4 || s.Ignored != 1 || s.Accepted != 2 {
		t.Errorf("node 0 stats %+v, want 2 accepted, 4 rejected, 1 ignored", s)
	}
	want := []string{
		"accepted", "accepted",
		"ignored/" + gossip.ReasonNotNewer,
		"rejected/" + gossip.ReasonInvalid,
		"rejected/" + gossip.ReasonMalformed,
		"rejected/" + gossip.ReasonNotOwner,
		"rejected/" + gossip.ReasonOversized,
	}
	if got := reasons.sorted(); !slices.Equal(got, want) {
		t.Errorf("node 0 outcomes %q, want %q", got, want)
	}
	// Peer scoring is on and the rejections cost the attacker: four
	// invalid deliveries at -100 times their square put it at -1600, below
	// the publish threshold; node 1, which relayed only good cards, stays
	// at or above zero.
	polltest.For(t, 10*time.Second, "attacker's score below the publish threshold", func() bool {
		s, ok := scores.score(attacker.ID())
		return ok && s < gossip.ScoreThresholds().PublishThreshold
	})
	if s, ok := scores.score(all[1].h.ID()); !ok || s < 0 {
		t.Errorf("node 1's score at node 0 is %v (known %v), want >= 0", s, ok)
	}
	for i, n := range all {
		if i > 0 {
			if s := n.g.Stats(); s.Rejected != 0 || s.Ignored != 0 || s.Accepted != 2 {
				t.Errorf("node %d stats %+v: a bad message was relayed", i, s)
			}
		}
		for _, c := range n.store.deliveries() {
			if c.ID != attackerID || (*c.Seq != 2 && *c.Seq != 3) {
				t.Errorf("node %d was handed %s seq %d", i, c.ID, *c.Seq)
			}
		}
		if n.store.held(victim.agent()) != nil {
			t.Errorf("node %d stored the victim's card published by a third party", i)
		}
		if n.store.seq(attackerID) != 3 {
			t.Errorf("node %d holds seq %d", i, n.store.seq(attackerID))
		}
	}
}

// scoreWatch keeps the last peer scores a router reported.
type scoreWatch struct {
	mu     sync.Mutex
	scores map[peer.ID]float64
	n      int // inspections so far
}

func (w *scoreWatch) inspect(m map[peer.ID]float64) {
	w.mu.Lock()
	w.scores = m
	w.n++
	w.mu.Unlock()
}

func (w *scoreWatch) inspections() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *scoreWatch) score(p peer.ID) (float64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.scores[p]
	return s, ok
}

// reasonRecorder is a gossip.Metrics that records every outcome.
type reasonRecorder struct {
	mu       sync.Mutex
	outcomes []string
}

func (r *reasonRecorder) add(s string) {
	r.mu.Lock()
	r.outcomes = append(r.outcomes, s)
	r.mu.Unlock()
}

func (r *reasonRecorder) Accepted()              { r.add("accepted") }
func (r *reasonRecorder) Refreshed()             { r.add("refreshed") }
func (r *reasonRecorder) Rejected(reason string) { r.add("rejected/" + reason) }
func (r *reasonRecorder) Ignored(reason string)  { r.add("ignored/" + reason) }

func (r *reasonRecorder) sorted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.outcomes))
}

// TestOwnCardFloodsEveryNeighbour publishes from the hub of a star whose
// routers never run a heartbeat, so no mesh ever forms: only flood
// publishing sends the hub's card to its 15 neighbours, all in its
// first sends.
func TestOwnCardFloodsEveryNeighbour(t *testing.T) {
	const leaves = 15 // more than GossipSub's D_hi of 12
	p := pubsub.DefaultGossipSubParams()
	p.HeartbeatInitialDelay, p.HeartbeatInterval = time.Hour, time.Hour
	nw := newNet(t, 1+leaves, p2pnet.Unconnected)
	nodes := startNodes(t, nw, 0, 1+leaves, gossip.PubSubOptions(pubsub.WithGossipSubParams(p)))
	hub := nodes[0]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Connected once every router runs, so each peer's hello finds the
	// protocol.
	if err := nw.ConnectTopology(ctx, p2pnet.Star); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 15*time.Second, "hub knows every leaf's subscription", func() bool {
		return len(hub.g.Peers()) == leaves
	})
	if m := hub.g.MeshSize(); m != 0 {
		t.Fatalf("hub's mesh has %d peers before any heartbeat", m)
	}
	card := cardtest.Signed(t, hub.sk, 1, "hub", "nlp/translation")
	if err := hub.g.Publish(ctx, card); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 15*time.Second, "card at every leaf", func() bool {
		for _, n := range nodes[1:] {
			if n.store.seq(hub.agent()) != 1 {
				return false
			}
		}
		return true
	})
}

// blockingChecker holds every check of the owner's cards until release
// is closed, after telling entered.
type blockingChecker struct {
	owner   peer.ID
	entered chan struct{}
	release chan struct{}
	done    atomic.Bool // a held check has returned
	next    gossip.Checker
}

func (b *blockingChecker) Check(raw []byte, owner peer.ID) (*adp.Card, error) {
	if owner == b.owner {
		select {
		case b.entered <- struct{}{}:
		default:
		}
		<-b.release
		defer b.done.Store(true)
	}
	return b.next.Check(raw, owner)
}

// TestCloseWaitsForValidation: Close returns only after the validator's
// calls in flight have returned, so that nothing the validator reads (the
// node's store) is used after Close.
func TestCloseWaitsForValidation(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Full)
	owner := startNodes(t, nw, 0, 1)[0]
	bc := &blockingChecker{owner: owner.h.ID(), entered: make(chan struct{}, 1), release: make(chan struct{}), next: adp.NewChecker(16)}
	nodes := append([]*node{owner}, startNodes(t, nw, 1, 2, gossip.WithChecker(bc))...)
	waitMeshed(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := owner.g.Publish(ctx, cardtest.Signed(t, owner.sk, 1, "owner")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-bc.entered:
	case <-ctx.Done():
		t.Fatal("the card never reached the validator")
	}
	closed := make(chan error, 1)
	go func() { closed <- nodes[1].g.Close() }()
	// Close must still wait when the check is let go: give it time to
	// return early if it would.
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a validation was in flight", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(bc.release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if !bc.done.Load() {
		t.Fatal("Close returned before the validation did")
	}
}
