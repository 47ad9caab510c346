package node

import (
	"context"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/invoke"
)

// Probing: a discovery request with "probe": true has the node ping its
// top candidates over AITP before it answers, all at once and within
// ProbeBudget, and report each round trip (or why there was none) and the
// free capacity it knows of. An answered ping is a sign of life
// (liveness); an unanswered one says only that this node could not reach
// the agent in time.
const (
	// ProbeBudget bounds the time probing adds to a discovery.
	ProbeBudget = 500 * time.Millisecond
	// ProbeTop is the number of top candidates probed.
	ProbeTop = 3
)

// probe pings the top ProbeTop results of resp (not the node's own
// agent) within ProbeBudget and records the evidence in the results and
// their candidates.
func (n *Node) probe(ctx context.Context, resp *adp.DiscoverResponse) {
	ctx, cancel := context.WithTimeout(ctx, ProbeBudget)
	defer cancel()
	var wg sync.WaitGroup
	for i := range resp.Results[:min(len(resp.Results), ProbeTop)] {
		id := resp.Results[i].ID
		if id == n.agentID {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp.Results[i].Probe = n.probeAgent(ctx, id)
		}()
	}
	wg.Wait()
	for i := range resp.Candidates {
		if i < len(resp.Results) && resp.Candidates[i].ID == resp.Results[i].ID {
			resp.Candidates[i].Probe = resp.Results[i].Probe
		}
	}
}

// probeAgent pings agentID once.
func (n *Node) probeAgent(ctx context.Context, agentID string) *adp.Probe {
	pr := &adp.Probe{}
	if c := n.store.Held(agentID); c != nil && c.Constraints != nil && c.Constraints.MaxConcurrentTasks != nil {
		free := max(*c.Constraints.MaxConcurrentTasks-n.feed.Active(agentID), 0)
		pr.FreeCapacity = &free
	}
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		pr.Error = err.Error()
		return pr
	}
	rtt, err := n.client.Ping(ctx, p)
	if err != nil {
		pr.Error = invoke.Unreachable(p, err).Error()
		return pr
	}
	pr.OK, pr.RTTMillis = true, float64(rtt.Microseconds())/1000
	n.feed.Heard(agentID)
	return pr
}
