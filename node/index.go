package node

import (
	"context"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/store"
)

// feedBuffer is the store change feed's channel buffer.
const feedBuffer = 256

// newIndex builds the discovery index; its signals are this node's
// interaction records plus the calls it has in flight.
func (n *Node) newIndex() (*Discovery, error) {
	return NewDiscovery(WithSignals(n.signals), WithDiscoveryLogger(n.log))
}

// signals returns the ranking signals of agentID. Called under the index's
// read lock: it reads the store and the node's counters only.
func (n *Node) signals(agentID string) scoring.Signals {
	st, err := n.store.Stats(context.Background(), agentID)
	if err != nil {
		return scoring.Signals{ActiveTasks: n.activeCalls(agentID)}
	}
	return scoring.Signals{
		Calls: st.Calls, Successes: st.Successes, Failures: st.Failures,
		CompletedTasks: st.CompletedTasks, RatingSum: st.RatingSum, RatingCount: st.RatingCount,
		LastSeen: st.LastSeen, ActiveTasks: n.activeCalls(agentID),
	}
}

func (n *Node) activeCalls(agentID string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.inflight[agentID]
}

// callStarted counts an outbound call in flight; the returned func ends it.
func (n *Node) callStarted(agentID string) func() {
	n.mu.Lock()
	n.inflight[agentID]++
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		if n.inflight[agentID]--; n.inflight[agentID] <= 0 {
			delete(n.inflight, agentID)
		}
		n.mu.Unlock()
	}
}

// startIndexFeed subscribes to the store's change feed, replays the held
// cards into the index, then applies changes until Close. It returns once
// the replay is done, so the index holds every stored card.
func (n *Node) startIndexFeed(ctx context.Context) error {
	changes, cancel := n.store.Subscribe(feedBuffer)
	err := n.store.Cards(ctx, func(r *store.Record) bool {
		n.indexRecord(r)
		return true
	})
	if err != nil {
		cancel()
		return err
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer cancel()
		for {
			select {
			case <-n.ctx.Done():
				return
			case ch, ok := <-changes:
				if !ok {
					return
				}
				n.applyChange(ch)
			}
		}
	}()
	return nil
}

func (n *Node) applyChange(ch store.Change) {
	switch ch.Kind {
	case store.Upserted:
		if ch.Record != nil {
			n.indexRecord(ch.Record)
		}
	case store.Removed:
		n.index.Remove(ch.AgentID)
		if p, err := adp.PeerIDFromAgentID(ch.AgentID); err == nil {
			n.mu.Lock()
			delete(n.directories, p)
			n.mu.Unlock()
		}
	}
}

func (n *Node) indexRecord(r *store.Record) {
	if err := n.index.Put(r.Card, r.ReceivedAt, r.ExpiresAt); err != nil {
		n.log.Debug("index card", "agent", r.AgentID, "err", err)
	}
	n.noteDirectory(r.Card)
}
