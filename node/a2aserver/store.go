package a2aserver

import (
	"context"
	"slices"
	"sync"
	"time"
)

// store keeps the tasks: at most max of them holding at most maxBytes of
// messages and replies, a finished one for ttl after its end. Room for a
// new task or a reply chunk is made by evicting the expired tasks, then
// the oldest finished ones; when only running tasks are left the store
// is full (ErrBusy). Readers get copies; a change wakes every watcher of
// the task. Safe for concurrent use.
type store struct {
	max      int
	maxBytes int
	ttl      time.Duration
	now      func() time.Time

	mu    sync.Mutex
	tasks map[string]*entry
	order []string // task ids, oldest first
	bytes int      // sum of the entries' bytes
}

// entry is a kept task and the means to end its call.
type entry struct {
	t       task
	bytes   int                // octets of its message and reply parts
	cancel  context.CancelFunc // ends the call (nil once it has ended)
	changed chan struct{}      // closed and replaced on every change
	done    chan struct{}      // closed when the task reaches a terminal state
}

func newStore(max, maxBytes int, ttl time.Duration, now func() time.Time) *store {
	return &store{max: max, maxBytes: maxBytes, ttl: ttl, now: now, tasks: make(map[string]*entry)}
}

// add keeps t (state submitted), whose call cancel ends, and sets its
// time.
func (s *store) add(t *task, cancel context.CancelFunc) error {
	size := 0
	for _, m := range t.history {
		size += messageBytes(&m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.makeRoomLocked(1, size) {
		return ErrBusy
	}
	t.updated = s.now()
	s.tasks[t.id] = &entry{t: *t, bytes: size, cancel: cancel, changed: make(chan struct{}), done: make(chan struct{})}
	s.order = append(s.order, t.id)
	s.bytes += size
	return nil
}

// makeRoomLocked reports whether tasks more tasks and size more octets
// fit, evicting first, when they do not, the expired tasks and then the
// oldest finished ones. When they fit it does nothing: an expired task
// is already invisible (lookupLocked), and costs only the room it holds
// until room is needed.
func (s *store) makeRoomLocked(tasks, size int) bool {
	fits := func() bool { return len(s.tasks)+tasks <= s.max && s.bytes+size <= s.maxBytes }
	if fits() {
		return true
	}
	now := s.now()
	expired := func(e *entry) bool { return e.t.state.terminal() && now.Sub(e.t.updated) >= s.ttl }
	for _, pass := range []func(*entry) bool{expired, func(e *entry) bool { return e.t.state.terminal() }} {
		s.order = slices.DeleteFunc(s.order, func(id string) bool {
			e := s.tasks[id]
			if (pass(e) && !fits()) || expired(e) {
				delete(s.tasks, id)
				s.bytes -= e.bytes
				return true
			}
			return false
		})
	}
	return fits()
}

// messageBytes is what a message costs the store.
func messageBytes(m *message) int {
	n := len(m.metadata)
	for _, p := range m.parts {
		n += p.length
	}
	return n
}

// appendReply adds p to the reply artifact of task id, making room for
// it first (ErrBusy when there is none). The room is made and taken
// under one hold of the lock.
func (s *store) appendReply(id string, p part) error {
	busy := false
	err := s.update(id, func(t *task) bool {
		// Eviction takes only finished tasks: t, unfinished, stays.
		if !s.makeRoomLocked(0, p.length) {
			busy = true
			return false
		}
		if len(t.artifacts) == 0 {
			t.artifacts = []artifact{{id: replyArtifactName, name: replyArtifactName}}
		}
		t.artifacts[0].parts = append(t.artifacts[0].parts, p)
		s.tasks[id].bytes += p.length
		s.bytes += p.length
		return true
	})
	if err == nil && busy {
		return ErrBusy
	}
	return err
}

// lookupLocked returns the live entry of id.
func (s *store) lookupLocked(id string) (*entry, error) {
	e := s.tasks[id]
	if e == nil || e.t.state.terminal() && s.now().Sub(e.t.updated) >= s.ttl {
		return nil, ErrTaskNotFound
	}
	return e, nil
}

// get returns a copy of task id and a channel closed at its next change.
func (s *store) get(id string) (task, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupLocked(id)
	if err != nil {
		return task{}, nil, err
	}
	return e.t.clone(), e.changed, nil
}

// update applies f to task id unless it has finished; f reports whether
// it changed the task. A change to a terminal state ends the call.
func (s *store) update(id string, f func(t *task) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tasks[id]
	if e == nil {
		return ErrTaskNotFound
	}
	if e.t.state.terminal() {
		return ErrNotCancelable
	}
	if !f(&e.t) {
		return nil
	}
	e.t.updated = s.now()
	close(e.changed)
	e.changed = make(chan struct{})
	if e.t.state.terminal() {
		close(e.done)
		if e.cancel != nil {
			e.cancel()
			e.cancel = nil
		}
	}
	return nil
}

// doneOf returns the channel closed when task id finishes.
func (s *store) doneOf(id string) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupLocked(id)
	if err != nil {
		return nil, err
	}
	return e.done, nil
}

// setState moves task id to st, with an agent message about it (may be
// nil); a task that has finished keeps its state (ErrNotCancelable).
func (s *store) setState(id string, st state, msg *message) error {
	return s.update(id, func(t *task) bool {
		t.state, t.statusMsg = st, msg
		return true
	})
}
