package a2aserver

import (
	"context"
	"slices"
	"sync"
	"time"
)

// store keeps the tasks: at most max of them, a finished one for ttl
// after its end. A new task first evicts the expired ones, then the
// oldest finished one; when every kept task still runs the store is full
// (ErrBusy). Readers get copies; a change wakes every watcher of the
// task. Safe for concurrent use.
type store struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	tasks map[string]*entry
	order []string // task ids, oldest first
}

// entry is a kept task and the means to end its call.
type entry struct {
	t       task
	cancel  context.CancelFunc // ends the call (nil once it has ended)
	changed chan struct{}      // closed and replaced on every change
	done    chan struct{}      // closed when the task reaches a terminal state
}

func newStore(max int, ttl time.Duration, now func() time.Time) *store {
	return &store{max: max, ttl: ttl, now: now, tasks: make(map[string]*entry)}
}

// add keeps t (state submitted), whose call cancel ends.
func (s *store) add(t task, cancel context.CancelFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked()
	if len(s.tasks) >= s.max {
		return ErrBusy
	}
	t.updated = s.now()
	s.tasks[t.id] = &entry{t: t, cancel: cancel, changed: make(chan struct{}), done: make(chan struct{})}
	s.order = append(s.order, t.id)
	return nil
}

// evictLocked drops the expired tasks and, when the store is full, the
// oldest finished one.
func (s *store) evictLocked() {
	now := s.now()
	oldest := -1
	s.order = slices.DeleteFunc(s.order, func(id string) bool {
		e := s.tasks[id]
		if e.t.state.terminal() && now.Sub(e.t.updated) >= s.ttl {
			delete(s.tasks, id)
			return true
		}
		return false
	})
	if len(s.tasks) < s.max {
		return
	}
	for i, id := range s.order {
		if s.tasks[id].t.state.terminal() {
			oldest = i
			break
		}
	}
	if oldest >= 0 {
		delete(s.tasks, s.order[oldest])
		s.order = slices.Delete(s.order, oldest, oldest+1)
	}
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
