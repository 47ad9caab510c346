package store

import "sync"

// ChangeKind says what happened to an agent's live card.
type ChangeKind uint8

// Change kinds.
const (
	// Upserted: a card was stored; Record is the held card.
	Upserted ChangeKind = iota + 1
	// Removed: the live card is gone (Reason: revoked, expired or evicted); Record is
	// the revocation or the removed record.
	Removed
	// Refreshed: the held card was received again, the very same bytes
	// (an owner's re-broadcast): only its ReceivedAt and ExpiresAt moved.
	// Record is the held card with the new times. A mirror that holds the
	// card need not read it again.
	Refreshed
)

func (k ChangeKind) String() string {
	switch k {
	case Upserted:
		return "upserted"
	case Removed:
		return "removed"
	case Refreshed:
		return "refreshed"
	}
	return "unknown"
}

// Change is one change of the live card set, as delivered by Subscribe.
type Change struct {
	Kind    ChangeKind
	AgentID string  // normalized agent id
	Record  *Record // read only
	Reason  string  // for Removed: ReasonRevoked, ReasonExpired or ReasonEvicted
}

// Subscribe returns a feed of changes to the live card set and a cancel
// func that ends it and closes the channel (idempotent; Close ends every
// feed too).
//
// To mirror the store (the discovery index does), subscribe first, then
// replay Cards, then apply the feed: a change that raced the replay is
// delivered again afterwards, and applying a change is idempotent.
//
// Writers never wait for subscribers. Pending changes are coalesced per
// agent: a slow reader may skip intermediate versions of an agent's card
// but always receives the latest change of every agent, so it converges on
// the store's state; a Refreshed change coalesced with a pending Upserted
// one is delivered as Upserted, with the refreshed times, so a reader
// never misses a card's new content. Pending memory is bounded by the number of agents.
// Agents are delivered in the order of their oldest pending change; buf is
// the channel's buffer.
func (s *Store) Subscribe(buf int) (<-chan Change, func()) {
	sub := &subscriber{
		ch:      make(chan Change, max(buf, 0)),
		pending: make(map[string]Change),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	s.subsMu.Lock()
	if s.subs == nil { // closed
		s.subsMu.Unlock()
		close(sub.ch)
		return sub.ch, func() {}
	}
	s.subs[sub] = struct{}{}
	s.subsMu.Unlock()
	go sub.run()
	cancel := func() {
		s.subsMu.Lock()
		delete(s.subs, sub)
		s.subsMu.Unlock()
		sub.stop()
	}
	return sub.ch, cancel
}

// publish hands c to every subscriber without blocking.
func (s *Store) publish(c Change) {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	for sub := range s.subs {
		sub.push(c)
	}
}

// subscriber is one feed: a coalescing queue drained by its goroutine.
type subscriber struct {
	ch chan Change

	mu      sync.Mutex
	order   []string          // agents with a pending change, oldest first
	pending map[string]Change // latest pending change per agent

	wake     chan struct{}
	done     chan struct{}
	exited   chan struct{}
	stopOnce sync.Once
}

func (sub *subscriber) push(c Change) {
	sub.mu.Lock()
	prev, ok := sub.pending[c.AgentID]
	if !ok {
		sub.order = append(sub.order, c.AgentID)
	} else if prev.Kind == Upserted && c.Kind == Refreshed {
		c.Kind = Upserted // the reader has yet to see the card itself
	}
	sub.pending[c.AgentID] = c
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

func (sub *subscriber) pop() (Change, bool) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if len(sub.order) == 0 {
		return Change{}, false
	}
	id := sub.order[0]
	sub.order[0] = ""
	sub.order = sub.order[1:]
	if len(sub.order) == 0 {
		sub.order = nil // let the backing array go
	}
	c := sub.pending[id]
	delete(sub.pending, id)
	return c, true
}

func (sub *subscriber) run() {
	defer close(sub.exited)
	defer close(sub.ch)
	for {
		c, ok := sub.pop()
		if !ok {
			select {
			case <-sub.wake:
				continue
			case <-sub.done:
				return
			}
		}
		select {
		case sub.ch <- c:
		case <-sub.done:
			return
		}
	}
}

// stop ends the goroutine and waits for it; the channel is then closed.
func (sub *subscriber) stop() {
	sub.stopOnce.Do(func() { close(sub.done) })
	<-sub.exited
}
