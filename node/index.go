package node

import (
	"context"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/store"
)

// feedBuffer is the store change feed's channel buffer.
const feedBuffer = 256

// newIndex builds the discovery index. Its ranking signals are pushed
// (pushSignals), never pulled: a Search reads no store, and the index
// knows the exact contribution of reputation, availability and rating
// for every agent without signals, which bounds their scores for pruning.
func (n *Node) newIndex() (*discovery.Discovery, error) {
	return discovery.New(discovery.WithLogger(n.log), discovery.WithClock(n.cfg.Clock),
		discovery.WithScoring(scoring.WithTags(n.cfg.Tags), scoring.WithAvailabilityWindow(2*n.cfg.GossipInterval)))
}

// currentSignals returns the ranking signals of agentID: the store's
// interaction records, this node's calls in flight to it and what the
// node observes of its liveness (a live connection, when it was last
// heard from, its calls failed in a row; an open circuit counts as
// enough failures to make it unavailable).
func (n *Node) currentSignals(agentID string) scoring.Signals {
	live := n.live.Get(agentID)
	s := scoring.Signals{
		ActiveTasks: n.activeCalls(agentID), LastSeen: live.LastHeard,
		Connected: n.connected(agentID), ConsecutiveFailures: live.ConsecutiveFailures,
	}
	if n.circuitOpen(agentID) {
		s.ConsecutiveFailures = max(s.ConsecutiveFailures, scoring.FailuresUnavailable)
	}
	st, err := n.store.Stats(context.Background(), agentID)
	if err != nil {
		return s
	}
	s.Calls, s.Successes, s.Failures = st.Calls, st.Successes, st.Failures
	s.CompletedTasks, s.RatingSum, s.RatingCount = st.CompletedTasks, st.RatingSum, st.RatingCount
	if st.LastSeen.After(s.LastSeen) {
		s.LastSeen = st.LastSeen
	}
	return s
}

// pushSignals reads the current signals of agentID and hands them to the
// index. The node calls it whenever one changes: an interaction record
// written (calls, successes, failures, latency, last seen), a rating, a
// call starting or ending (in-flight count). Pushes are serialized by
// sigMu and each reads the latest values, so the last push always holds
// the current signals. n.mu is never held while calling into the index.
func (n *Node) pushSignals(agentID string) {
	n.sigMu.Lock()
	defer n.sigMu.Unlock()
	n.index.SetSignals(agentID, n.currentSignals(agentID))
}

// pushStoredSignals pushes the signals of an agent whose card enters the
// index, when it has any (at start, this loads the stored records of
// every replayed card; zero signals need no push).
func (n *Node) pushStoredSignals(agentID string) {
	n.sigMu.Lock()
	defer n.sigMu.Unlock()
	if s := n.currentSignals(agentID); s != (scoring.Signals{}) {
		n.index.SetSignals(agentID, s)
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
	n.pushSignals(agentID) // availability and load filtering count calls in flight
	return func() {
		n.mu.Lock()
		if n.inflight[agentID]--; n.inflight[agentID] <= 0 {
			delete(n.inflight, agentID)
		}
		n.mu.Unlock()
		n.pushSignals(agentID)
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
				n.indexed.notify()
			}
		}
	}()
	return nil
}

// applyChange applies one change of the store's feed, the index's only
// writer (besides the replay at start).
func (n *Node) applyChange(ch store.Change) {
	switch ch.Kind {
	case store.Upserted:
		if ch.Record != nil {
			n.indexRecord(ch.Record)
		}
	case store.Refreshed:
		// The held card again: move its times, do not analyse it again.
		if r := ch.Record; r != nil && !n.index.Touch(r.AgentID, r.Card, r.ReceivedAt, r.ExpiresAt) {
			n.indexRecord(r)
		}
	case store.Removed:
		n.index.Remove(ch.AgentID)
		n.live.Forget(ch.AgentID)
		n.sigMu.Lock()
		n.index.SetSignals(ch.AgentID, scoring.Signals{}) // pushed again if the card returns
		n.sigMu.Unlock()
		n.dirs.Forget(ch.AgentID)
	}
}

func (n *Node) indexRecord(r *store.Record) {
	if err := n.index.Put(r.Card, r.ReceivedAt, r.ExpiresAt); err != nil {
		n.log.Debug("index card", "agent", r.AgentID, "err", err)
	}
	n.pushStoredSignals(r.AgentID)
	n.dirs.Note(r.Card)
}

// indexWait bounds how long a federated search waits for the feed to
// index the cards it just stored.
const indexWait = 2 * time.Second

// awaitIndexed waits until the index holds each of cards (or a card that
// supersedes it), ctx ends or indexWait passes. The store's feed indexes
// a stored card a moment after the write; a federated search waits for it
// so that its local ranking sees the cards it fetched.
func (n *Node) awaitIndexed(ctx context.Context, cards ...*adp.Card) {
	if len(cards) == 0 {
		return
	}
	t := time.NewTimer(indexWait)
	defer t.Stop()
	for _, c := range cards {
		for !c.IsRevocation() {
			changed := n.indexed.wait()
			if n.index.Holds(c) {
				break
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			case <-t.C:
				return
			}
		}
	}
}

// signal wakes every waiter at each notify.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

// wait returns a channel closed at the next notify.
func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

func (s *signal) notify() {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
}
