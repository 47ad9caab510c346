package probe

import (
	"context"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/invoke"
)

const (
	// Budget bounds the time probing adds to a discovery.
	Budget = 500 * time.Millisecond
	// Top is the number of top results probed.
	Top = 3
)

// Config is what a Prober reads and tells. Every field is required.
type Config struct {
	// Self is the node's own agent id, never probed.
	Self string
	// Held returns the card held for an agent, nil when none.
	Held func(agentID string) *adp.Card
	// Active returns the calls in flight to an agent.
	Active func(agentID string) int
	// Ping pings a peer over AITP and returns the round trip.
	Ping func(ctx context.Context, p peer.ID) (time.Duration, error)
	// Heard is told of each agent that answered.
	Heard func(agentID string)
}

// Prober pings the top results of discoveries.
type Prober struct{ cfg Config }

// New returns a Prober.
func New(cfg Config) *Prober { return &Prober{cfg: cfg} }

// Probe pings the top Top results of resp (not the node's own agent)
// within Budget and records the evidence in the results and in their
// candidates.
func (p *Prober) Probe(ctx context.Context, resp *adp.DiscoverResponse) {
	ctx, cancel := context.WithTimeout(ctx, Budget)
	defer cancel()
	var wg sync.WaitGroup
	for i := range resp.Results[:min(len(resp.Results), Top)] {
		id := resp.Results[i].ID
		if id == p.cfg.Self {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp.Results[i].Probe = p.agent(ctx, id)
		}()
	}
	wg.Wait()
	for i := range resp.Candidates {
		if i < len(resp.Results) && resp.Candidates[i].ID == resp.Results[i].ID {
			resp.Candidates[i].Probe = resp.Results[i].Probe
		}
	}
}

// agent pings agentID once.
func (p *Prober) agent(ctx context.Context, agentID string) *adp.Probe {
	pr := &adp.Probe{}
	if c := p.cfg.Held(agentID); c != nil && c.Constraints != nil && c.Constraints.MaxConcurrentTasks != nil {
		free := max(*c.Constraints.MaxConcurrentTasks-p.cfg.Active(agentID), 0)
		pr.FreeCapacity = &free
	}
	pid, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		pr.Error = err.Error()
		return pr
	}
	rtt, err := p.cfg.Ping(ctx, pid)
	if err != nil {
		pr.Error = invoke.Unreachable(pid, err).Error()
		return pr
	}
	pr.OK, pr.RTTMillis = true, float64(rtt.Microseconds())/1000
	p.cfg.Heard(agentID)
	return pr
}
