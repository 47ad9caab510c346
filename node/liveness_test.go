package node_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
)

// testClock is a clock tests move by hand, safe for concurrent use.
type testClock struct{ offset atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *testClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

const liveQuery = `{"tags": ["data/weather"], "query": "weather forecast", "min_score": 0, "include_evidence": true}`

// availabilities returns the availability of every result of n's local
// discovery for liveQuery, in rank order.
func availabilities(t *testing.T, n *node.Node) ([]string, map[string]float64) {
	t.Helper()
	req, err := adp.ParseDiscoverRequest([]byte(liveQuery))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := n.Discover(context.Background(), req, "local")
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	var ids []string
	av := map[string]float64{}
	for _, r := range resp.Results {
		ids = append(ids, r.ID)
		av[r.ID] = r.ScoreComponents["availability"]
	}
	return ids, av
}

func weatherAgent(bootstrap string, agentURL string) testNode {
	return testNode{name: "Weather Oracle", description: "Forecasts the weather for any city.", skills: []string{"data/weather"},
		tools: []adp.Tool{{Name: "forecast", Description: "Forecast the weather"}}, agentURL: agentURL, bootstrap: []string{bootstrap}, noAPI: true}
}

// TestKilledAgentFallsBelowLiveOnes: two agents equal on text greet a
// hub and stay connected: both are available though never called. One is
// killed; within two re-broadcast intervals (the hub's clock moved by
// hand) it is unavailable and ranked below the live one, still listed.
func TestKilledAgentFallsBelowLiveOnes(t *testing.T) {
	clock := &testClock{}
	hub := startNode(t, testNode{name: "hub", noAPI: true, clock: clock.now})
	live := startNode(t, weatherAgent(addrOf(t, hub), ""))
	killed := startNode(t, weatherAgent(addrOf(t, hub), ""))
	polltest.For(t, 20*time.Second, "both agents greeted the hub and are available", func() bool {
		_, av := availabilities(t, hub)
		return av[live.AgentID()] == 1 && av[killed.AgentID()] == 1
	})
	if err := killed.Close(); err != nil {
		t.Fatal(err)
	}
	// The hub hears of the close on its own time: the disconnection is a
	// sign of life too (it renews LastHeard), and a card re-broadcast
	// the killed node sent before closing may still be in the hub's
	// validation. Each is stamped with the hub's clock when it is
	// processed, so moving the clock before it only makes the killed
	// agent live for another window. So wait for the disconnection,
	// then move the clock past the window from the last sign of life,
	// again if a late one renewed it (at most twice more).
	polltest.For(t, 20*time.Second, "the hub recorded the killed agent's disconnection", func() bool {
		return !hub.Liveness(killed.AgentID()).Connected
	})
	const window = 2 * node.DefaultGossipInterval
	advances := 0
	polltest.Until(t, 20*time.Second, func() error {
		if last := hub.Liveness(killed.AgentID()).LastHeard; !clock.now().After(last.Add(window)) {
			if advances++; advances > 3 {
				t.Fatalf("the killed agent was heard %d times after its disconnection, last at %v", advances-1, last)
			}
			clock.advance(last.Add(window + time.Second).Sub(clock.now()))
		}
		ids, av := availabilities(t, hub)
		if av[killed.AgentID()] != 0 || av[live.AgentID()] != 1 || !firstOf(ids, live.AgentID(), killed.AgentID()) {
			return fmt.Errorf("ranking %v, availability %v: want the live agent first (1), the killed one listed after it (0)", ids, av)
		}
		return nil
	})
}

// TestFailedCallsLowerAvailability: a connected agent whose calls fail
// loses a third of its availability per failure and is unavailable at
// the third in a row.
func TestFailedCallsLowerAvailability(t *testing.T) {
	hub := startNode(t, testNode{name: "hub", noAPI: true})
	broken := startNode(t, weatherAgent(addrOf(t, hub), "http://127.0.0.1:1")) // nothing listens there
	polltest.For(t, 20*time.Second, "the agent is available", func() bool {
		_, av := availabilities(t, hub)
		return av[broken.AgentID()] == 1
	})
	for i := 1; i <= 3; i++ {
		if _, err := hub.Invoke(context.Background(), broken.AgentID(), "forecast", []byte(`{}`)); err == nil {
			t.Fatal("a call to a dead backend succeeded")
		}
		want := 1 - float64(i)/3
		polltest.Until(t, 10*time.Second, func() error {
			if _, av := availabilities(t, hub); av[broken.AgentID()] > want+1e-9 || av[broken.AgentID()] < want-1e-9 {
				return fmt.Errorf("after %d failures availability %v, want %v", i, av[broken.AgentID()], want)
			}
			return nil
		})
	}
}

// TestProbeReportsRTTWithinBudget: with "probe": true the node pings its
// top candidates before answering: a live agent's round trip is reported,
// a killed one's failure, and the answer comes within the probe budget.
func TestProbeReportsRTTWithinBudget(t *testing.T) {
	hub := startNode(t, testNode{name: "hub", noAPI: true})
	live := startNode(t, weatherAgent(addrOf(t, hub), ""))
	killed := startNode(t, weatherAgent(addrOf(t, hub), ""))
	polltest.For(t, 20*time.Second, "both agents known to the hub", func() bool {
		ids, _ := availabilities(t, hub)
		return len(ids) == 2
	})
	if err := killed.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := adp.ParseDiscoverRequest([]byte(`{"tags": ["data/weather"], "min_score": 0, "probe": true}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := hub.Discover(context.Background(), req, "local")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > node.ProbeBudget+time.Second {
		t.Fatalf("discovery with probes took %v, budget %v", took, node.ProbeBudget)
	}
	got := map[string]*adp.Probe{}
	for i, r := range resp.Results {
		got[r.ID] = r.Probe
		if resp.Candidates[i].Probe != r.Probe {
			t.Fatalf("candidate %d: probe %+v, result %+v", i, resp.Candidates[i].Probe, r.Probe)
		}
	}
	if p := got[live.AgentID()]; p == nil || !p.OK || p.RTTMillis <= 0 || p.RTTMillis > float64(node.ProbeBudget.Milliseconds()) {
		t.Fatalf("live agent's probe %+v", p)
	}
	if p := got[killed.AgentID()]; p == nil || p.OK || p.Error == "" {
		t.Fatalf("killed agent's probe %+v", p)
	}
	// Without "probe" no agent is pinged.
	req.Probe = false
	if resp, err := hub.Discover(context.Background(), req, "local"); err != nil || resp.Results[0].Probe != nil {
		t.Fatalf("unprobed discovery: %v %+v", err, resp)
	}
}

// TestAdvertiseStaleCard: an owner advertising a card older than the one
// the receiver holds gets stale_metadata; the newer card stays.
func TestAdvertiseStaleCard(t *testing.T) {
	ctx := context.Background()
	hub := startNode(t, testNode{name: "hub", noAPI: true})
	b := startNode(t, weatherAgent(addrOf(t, hub), ""))
	old := b.Card()
	if err := b.UpdateCard(ctx, func(c *adp.Card) { c.Description = "Forecasts the weather, now hourly." }); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 20*time.Second, "the hub holds b's new card", func() bool {
		rec, err := hub.LookupCard(ctx, b.AgentID())
		return err == nil && *rec.Card.Seq == *b.Card().Seq
	})
	_, err := b.CallPeer(ctx, hub.PeerID(), service.MethodAdvertise, old.Raw())
	var re *aitp.Error
	if !errors.As(err, &re) || re.Code != aitp.CodeStaleMetadata || re.Path != "/seq" {
		t.Fatalf("advertising an older card: %v, want stale_metadata", err)
	}
	if rec, err := hub.LookupCard(ctx, b.AgentID()); err != nil || *rec.Card.Seq != *b.Card().Seq {
		t.Fatalf("held card after the stale advertisement: %v", err)
	}
}
