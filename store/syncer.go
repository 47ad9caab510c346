package store

import "sync"

// syncer makes committed writes durable with as few syncs as possible:
// every caller of wait gets a sync that started after its call, and callers
// that arrive while one sync runs share the next (group commit).
type syncer struct {
	sync func() error

	mu      sync.Mutex
	cond    sync.Cond
	started uint64 // syncs begun
	done    uint64 // syncs finished
	running bool
	waiting int   // callers parked on a running sync
	err     error // result of the latest finished sync
	queued  bool  // a sync asked for by soon has not begun waiting yet
}

func newSyncer(sync func() error) *syncer {
	y := &syncer{sync: sync}
	y.cond.L = &y.mu
	return y
}

// wait returns once a sync that began after the call has finished, with
// the result of the latest finished sync (a later sync covers earlier
// writes too).
func (y *syncer) wait() error {
	y.mu.Lock()
	defer y.mu.Unlock()
	target := y.started + 1 // a running sync may have begun before our write
	for y.done < target {
		if y.running {
			y.waiting++
			y.cond.Wait()
			y.waiting--
			continue
		}
		y.running = true
		y.started++
		y.mu.Unlock()
		err := y.sync()
		y.mu.Lock()
		y.running = false
		y.done++
		y.err = err
		y.cond.Broadcast()
	}
	return y.err
}

// soon makes the writes committed before the call durable without waiting
// for them: it hands spawn a function that syncs (as wait does, sharing
// the sync with other callers) and returns its error. A call while such a
// function is queued and has not started waiting asks for nothing more:
// that one covers its writes too, so at most one is queued at a time.
func (y *syncer) soon(spawn func(sync func() error)) {
	y.mu.Lock()
	if y.queued {
		y.mu.Unlock()
		return
	}
	y.queued = true
	y.mu.Unlock()
	spawn(func() error {
		y.mu.Lock()
		y.queued = false // writes from here on queue a sync of their own
		y.mu.Unlock()
		return y.wait()
	})
}
