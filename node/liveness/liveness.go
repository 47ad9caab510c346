package liveness

import (
	"sync"
	"time"
)

// DefaultMaxAgents bounds the agents a Tracker holds (WithMaxAgents).
const DefaultMaxAgents = 1 << 20

// State is what a Tracker observed of one agent.
type State struct {
	// Connected reports a live connection to the agent's peer.
	Connected bool
	// LastHeard is when the agent was last heard from: a connection
	// opened or closed, a greeting, a re-broadcast, a call answered.
	LastHeard time.Time
	// ConsecutiveFailures counts the calls that failed since the last
	// one that succeeded.
	ConsecutiveFailures int
}

// Tracker records the liveness of agents by id.
type Tracker struct {
	now func() time.Time
	max int

	mu     sync.Mutex
	agents map[string]*State
}

// Option configures a Tracker.
type Option func(*Tracker)

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(t *Tracker) { t.now = now } }

// WithMaxAgents bounds the agents held (default DefaultMaxAgents).
func WithMaxAgents(n int) Option { return func(t *Tracker) { t.max = n } }

// New returns an empty Tracker.
func New(opts ...Option) *Tracker {
	t := &Tracker{now: time.Now, max: DefaultMaxAgents, agents: make(map[string]*State)}
	for _, o := range opts {
		o(t)
	}
	return t
}

// update applies f to agentID's state under the lock; it reports false
// when the agent is new and the Tracker is full.
func (t *Tracker) update(agentID string, f func(s *State, now time.Time)) bool {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.agents[agentID]
	if !ok {
		if len(t.agents) >= t.max {
			return false
		}
		s = &State{}
		t.agents[agentID] = s
	}
	f(s, now)
	return true
}

// Heard records a sign of life of agentID: a greeting or a re-broadcast
// of its card. It reports false when the observation was dropped.
func (t *Tracker) Heard(agentID string) bool {
	return t.update(agentID, func(s *State, now time.Time) { s.LastHeard = now })
}

// Connected records that a connection to agentID's peer opened (up) or
// closed (!up); both are heard now.
func (t *Tracker) Connected(agentID string, up bool) bool {
	return t.update(agentID, func(s *State, now time.Time) {
		s.Connected, s.LastHeard = up, now
	})
}

// Called records the outcome of a call to agentID: a success is heard
// now and ends the run of failures, a failure lengthens it.
func (t *Tracker) Called(agentID string, ok bool) bool {
	return t.update(agentID, func(s *State, now time.Time) {
		if ok {
			s.ConsecutiveFailures, s.LastHeard = 0, now
		} else {
			s.ConsecutiveFailures++
		}
	})
}

// Get returns agentID's state, the zero State when none was observed.
func (t *Tracker) Get(agentID string) State {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.agents[agentID]; ok {
		return *s
	}
	return State{}
}

// Forget drops agentID's state (its card left the node).
func (t *Tracker) Forget(agentID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.agents, agentID)
}

// Len returns the number of agents held.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.agents)
}
