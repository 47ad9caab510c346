package probe_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/node/probe"
)

// The top results are pinged over real AITP on mocknet: the node's own
// agent is skipped, a live agent answers (a sign of life, with its free
// capacity), an agent on no host does not, and results past the top are
// left alone; each candidate gets its result's evidence.
func TestProbe(t *testing.T) {
	keys := []crypto.PrivKey{cardtest.Key(t, 1), cardtest.Key(t, 2)}
	pair := aitptest.NewPair(t, p2pnet.WithKeys(keys...))
	self := adp.AgentID(pair.Caller.ID())
	live := cardtest.Signed(t, keys[1], 1, "live")
	four := 4
	live.Constraints = &adp.Constraints{MaxConcurrentTasks: &four}
	ghost := cardtest.Signed(t, cardtest.Key(t, 3), 1, "ghost").ID
	past := cardtest.Signed(t, cardtest.Key(t, 4), 1, "past the top").ID

	var mu sync.Mutex
	var heard []string
	p := probe.New(probe.Config{
		Self: self,
		Held: func(id string) *adp.Card {
			if id == live.ID {
				return live
			}
			return nil
		},
		Active: func(id string) int { return 1 },
		Ping:   pair.Client.Ping,
		Heard:  func(id string) { mu.Lock(); heard = append(heard, id); mu.Unlock() },
	})
	ids := []string{self, live.ID, ghost, past}
	resp := &adp.DiscoverResponse{}
	for _, id := range ids {
		resp.Results = append(resp.Results, adp.DiscoverResult{ID: id})
		resp.Candidates = append(resp.Candidates, adp.Candidate{ID: id})
	}
	p.Probe(context.Background(), resp)

	if pr := resp.Results[0].Probe; pr != nil {
		t.Fatalf("own agent probed: %+v", pr)
	}
	pr := resp.Results[1].Probe
	if pr == nil || !pr.OK || pr.RTTMillis <= 0 || pr.Error != "" {
		t.Fatalf("live agent: %+v", pr)
	}
	if pr.FreeCapacity == nil || *pr.FreeCapacity != 3 {
		t.Fatalf("live agent's free capacity %v, want 4 less 1 in flight", pr.FreeCapacity)
	}
	if pr := resp.Results[2].Probe; pr == nil || pr.OK || pr.Error == "" || pr.FreeCapacity != nil {
		t.Fatalf("agent on no host: %+v", pr)
	}
	if pr := resp.Results[3].Probe; pr != nil {
		t.Fatalf("result past the top %d probed: %+v", probe.Top, pr)
	}
	for i := range resp.Results {
		if resp.Candidates[i].Probe != resp.Results[i].Probe {
			t.Fatalf("candidate %d has not its result's evidence", i)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(heard, []string{live.ID}) {
		t.Fatalf("heard %v, want the live agent only", heard)
	}
}
