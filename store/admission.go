package store

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Defaults of the bounds on the live card set (see WithMaxCards).
const (
	// DefaultNetworkShare is the fraction of WithMaxCards that new agents
	// delivered from one source network may hold together.
	DefaultNetworkShare = 0.1
)

// Refusal reasons, in Metrics.Refused (a closed set).
const (
	RefusedFull    = "full"          // the store holds WithMaxCards cards, none weaker than the newcomer
	RefusedNetwork = "network_quota" // the newcomer's source network holds its share
)

// admission mirrors the live card set with what the eviction order needs,
// and decides whether a new agent's card may enter a bounded store. It is
// safe for concurrent use.
//
// The eviction order ranks a held card by, weakest first:
//
//  1. stale (its freshness ran out: its owner stopped re-broadcasting it)
//     before fresh;
//  2. shorter tenure (the time between the first and the last receipt of
//     the card: how long its owner has been seen re-broadcasting) before
//     longer;
//  3. first seen later before first seen earlier.
//
// Cards of the node itself and cards imported (by an operator, a
// bootstrap sync or a federated discovery) are pinned: never evicted. A
// newcomer has no tenure and was first seen now, so when the store is
// full it takes the place of a held card only when that card is stale;
// otherwise it is refused. A pinned newcomer takes the place of the
// weakest unpinned card.
type admission struct {
	max   int // 0: unbounded
	quota int // new agents per source network

	mu     sync.Mutex
	held   map[string]*admitEntry
	perNet map[string]int
	// noStaleBefore is a lower bound of the earliest expiry of an unpinned
	// held card: before it no unpinned card is stale, so a newcomer beats
	// none and is refused without a scan.
	noStaleBefore time.Time
}

type admitEntry struct {
	id                  string
	firstSeen, received time.Time
	expires             time.Time // zero: never
	net                 string    // source network of the delivery that brought the agent in
	pinned              bool
}

func (e *admitEntry) stale(now time.Time) bool {
	return !e.expires.IsZero() && !now.Before(e.expires)
}

func (e *admitEntry) tenure() time.Duration { return e.received.Sub(e.firstSeen) }

// rank compares a and b in the eviction order at now: negative when a
// comes first (is weaker), zero when they tie.
func rank(a, b *admitEntry, now time.Time) int {
	if as, bs := a.stale(now), b.stale(now); as != bs {
		if as {
			return -1
		}
		return 1
	}
	if at, bt := a.tenure(), b.tenure(); at != bt {
		return cmp.Compare(at, bt)
	}
	return b.firstSeen.Compare(a.firstSeen) // first seen later comes first
}

// order is the eviction order at now, ties broken by agent id so that it
// is total and deterministic: negative when a comes first.
func order(a, b *admitEntry, now time.Time) int {
	if r := rank(a, b, now); r != 0 {
		return r
	}
	return cmp.Compare(b.id, a.id) // the larger id comes first
}

// weaker reports whether a comes before b in the eviction order.
func weaker(a, b *admitEntry, now time.Time) bool { return order(a, b, now) < 0 }

func newAdmission(maxCards int, share float64) *admission {
	a := &admission{max: maxCards, held: make(map[string]*admitEntry), perNet: make(map[string]int)}
	if maxCards > 0 {
		a.quota = max(1, int(share*float64(maxCards)))
	}
	return a
}

func pinnedSource(src Source) bool { return src == SourceSelf || src == SourceImport }

// admit reserves a place for a new agent's card. It reports whether it
// reserved one (false when id is already in the live set, or reserved by
// a put in flight: that put owns the place), the agents to evict first,
// or the refusal reason when the card may not enter. The check and the
// reservation are one step under the lock, so of two concurrent first
// puts of one agent exactly one reserves. A reservation that a put then
// does not fill is given back with remove.
func (a *admission) admit(e *admitEntry, now time.Time) (reserved bool, victims []string, refused string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.held[e.id]; ok {
		return false, nil, ""
	}
	switch {
	case a.max > 0 && e.net != "" && !e.pinned && a.perNet[e.net] >= a.quota:
		// The newcomer may only take the place of a card of its own network.
		v := a.weakest(e, now, func(h *admitEntry) bool { return h.net == e.net })
		if v == nil {
			return false, nil, RefusedNetwork
		}
		victims = append(victims, v.id)
		a.drop(v)
	case a.max > 0 && len(a.held) >= a.max:
		v := a.weakest(e, now, nil)
		if v == nil {
			return false, nil, RefusedFull
		}
		victims = append(victims, v.id)
		a.drop(v)
	}
	a.insert(e)
	return true, victims, ""
}

// weakest returns the weakest unpinned held card that match accepts (nil:
// any) and that comes before the newcomer e in the eviction order, or nil.
// A pinned newcomer beats any unpinned card.
func (a *admission) weakest(e *admitEntry, now time.Time, match func(*admitEntry) bool) *admitEntry {
	if !e.pinned && now.Before(a.noStaleBefore) {
		return nil // only a stale card is weaker than a newcomer
	}
	var w *admitEntry
	next := time.Time{}
	for _, h := range a.held {
		if h.pinned {
			continue
		}
		if !h.expires.IsZero() && (next.IsZero() || h.expires.Before(next)) {
			next = h.expires
		}
		if match != nil && !match(h) {
			continue
		}
		if w == nil || weaker(h, w, now) {
			w = h
		}
	}
	if match == nil {
		a.noStaleBefore = next
		if next.IsZero() {
			a.noStaleBefore = now.Add(MaxTTL) // nothing expires: a newcomer never wins
		}
	}
	if w == nil || (!e.pinned && rank(w, e, now) >= 0) { // a tie keeps the held card
		return nil
	}
	return w
}

func (a *admission) insert(e *admitEntry) {
	a.held[e.id] = e
	if e.net != "" {
		a.perNet[e.net]++
	}
	if !e.pinned && !e.expires.IsZero() && e.expires.Before(a.noStaleBefore) {
		a.noStaleBefore = e.expires
	}
}

func (a *admission) drop(e *admitEntry) {
	delete(a.held, e.id)
	if e.net != "" {
		if a.perNet[e.net]--; a.perNet[e.net] <= 0 {
			delete(a.perNet, e.net)
		}
	}
}

// touch records a new receipt of a held agent's card (a refresh or a newer
// version); a card ever pinned stays pinned.
func (a *admission) touch(id string, src Source, received, expires time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.held[id]
	if !ok {
		e = &admitEntry{id: id, firstSeen: received}
		a.insert(e)
	}
	e.received, e.expires = received, expires
	e.pinned = e.pinned || pinnedSource(src)
}

// remove forgets id (its card was removed, or its reservation given back).
func (a *admission) remove(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.held[id]; ok {
		a.drop(e)
	}
}

// overflow returns the unpinned agents to evict, weakest first, to bring
// the live set down to the bound (after Open with a lowered bound).
func (a *admission) overflow(now time.Time) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.max <= 0 || len(a.held) <= a.max {
		return nil
	}
	var cands []*admitEntry
	for _, h := range a.held {
		if !h.pinned {
			cands = append(cands, h)
		}
	}
	slices.SortFunc(cands, func(x, y *admitEntry) int { return order(x, y, now) })
	n := min(len(a.held)-a.max, len(cands))
	ids := make([]string, 0, n)
	for _, h := range cands[:n] {
		ids = append(ids, h.id)
	}
	return ids
}

// len returns the number of agents in the live set, with reservations.
func (a *admission) len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.held)
}
