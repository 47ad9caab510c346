package indexfeed

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/scoring"
)

// Signals returns the ranking signals of agentID: the store's interaction
// records, the calls in flight to it and what the node observes of its
// liveness (a live connection, when it was last heard from, its calls
// failed in a row; an open circuit counts as enough failures to make it
// unavailable).
func (f *Feed) Signals(agentID string) scoring.Signals {
	live := f.cfg.Live.Get(agentID)
	s := scoring.Signals{
		ActiveTasks: f.Active(agentID), LastSeen: live.LastHeard,
		Connected: f.connected(agentID), ConsecutiveFailures: live.ConsecutiveFailures,
	}
	if f.circuitOpen(agentID) {
		s.ConsecutiveFailures = max(s.ConsecutiveFailures, scoring.FailuresUnavailable)
	}
	st, err := f.cfg.Store.Stats(context.Background(), agentID)
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

// Push reads the current signals of agentID and hands them to the index;
// call it when a signal the feed does not see changes (a rating). Pushes
// are serialised and each reads the latest values, so the last push
// always holds the current signals.
func (f *Feed) Push(agentID string) {
	f.sigMu.Lock()
	defer f.sigMu.Unlock()
	f.cfg.Index.SetSignals(agentID, f.Signals(agentID))
}

// pushStored pushes the signals of an agent whose card enters the index,
// when it has any (at start, this loads the stored records of every
// replayed card; zero signals need no push).
func (f *Feed) pushStored(agentID string) {
	f.sigMu.Lock()
	defer f.sigMu.Unlock()
	if s := f.Signals(agentID); s != (scoring.Signals{}) {
		f.cfg.Index.SetSignals(agentID, s)
	}
}

// Active returns the number of calls in flight to agentID.
func (f *Feed) Active(agentID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inflight[agentID]
}

// CallStarted counts a call to agentID in flight; the returned func ends
// it. Availability and load filtering count calls in flight.
func (f *Feed) CallStarted(agentID string) func() {
	f.mu.Lock()
	f.inflight[agentID]++
	f.mu.Unlock()
	f.Push(agentID)
	return func() {
		f.mu.Lock()
		if f.inflight[agentID]--; f.inflight[agentID] <= 0 {
			delete(f.inflight, agentID)
		}
		f.mu.Unlock()
		f.Push(agentID)
	}
}

// call is one call's outcome for the interaction records.
type call struct {
	agentID string
	ok      bool
	latency time.Duration
}

// Called records the outcome of a call to agentID: a success is a
// sighting and ends a run of failures, a failure lengthens it, and the
// call is queued for the store's interaction records (written by the
// feed, off the call path, then pushed). A refusal at dispatch (no such
// tool, a bad request, unauthorised) says nothing about the agent's
// health and is not recorded.
func (f *Feed) Called(agentID string, err error, latency time.Duration) {
	if err != nil {
		if st, ok := aitp.StatusOf(err); ok && (st == aitp.StatusNotFound || st == aitp.StatusInvalidRequest || st == aitp.StatusUnauthorized) {
			return
		}
	}
	f.cfg.Live.Called(agentID, err == nil) // pushed with the record
	select {
	case f.calls <- call{agentID: agentID, ok: err == nil, latency: latency}:
	default:
		f.cfg.Log.Debug("interaction record dropped: queue full", "agent", agentID)
	}
}

// writeCalls writes queued call outcomes to the store until ctx ends.
func (f *Feed) writeCalls(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-f.calls:
			if err := f.cfg.Store.RecordCall(ctx, c.agentID, c.ok, c.latency); err != nil {
				if ctx.Err() == nil {
					f.cfg.Log.Debug("record call", "agent", c.agentID, "err", err)
				}
				continue
			}
			f.Push(c.agentID)
		}
	}
}

// Heard records a sign of life of agentID (a greeting, a delivery of its
// card by its owner, an answered ping) and pushes its signals when the
// store holds its card.
func (f *Feed) Heard(agentID string) {
	if !f.cfg.Store.Holds(agentID) {
		return
	}
	if f.cfg.Live.Heard(agentID) {
		f.Push(agentID)
	}
}

// watchConns records the connection changes of peers whose card the
// store holds, and pushes their signals, until ctx ends. It closes sub.
func (f *Feed) watchConns(ctx context.Context, sub event.Subscription) {
	defer sub.Close()
	self := f.cfg.Host.ID()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.Out():
			if !ok {
				return
			}
			e, isConn := ev.(event.EvtPeerConnectednessChanged)
			if !isConn || e.Peer == self {
				continue
			}
			id := adp.AgentID(e.Peer)
			if f.cfg.Store.Held(id) == nil {
				continue
			}
			if f.cfg.Live.Connected(id, e.Connectedness == network.Connected) {
				f.Push(id)
			}
		}
	}
}

// connected reports a live connection to agentID's peer.
func (f *Feed) connected(agentID string) bool {
	p, err := adp.PeerIDFromAgentID(agentID)
	return err == nil && f.cfg.Host.Network().Connectedness(p) == network.Connected
}

// circuitOpen reports whether the invocation layer's circuit breaker for
// agentID's peer is open: its calls fail fast.
func (f *Feed) circuitOpen(agentID string) bool {
	p, err := adp.PeerIDFromAgentID(agentID)
	return err == nil && f.cfg.Breakers.BreakerState(p) == aitp.BreakerOpen
}
