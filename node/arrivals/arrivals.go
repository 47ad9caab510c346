package arrivals

import (
	"sync"
	"time"

	"github.com/adpnode/adpnode/node/nodeapi"
)

// DefaultCapacity is how many card versions a Log remembers unless
// WithCapacity says otherwise: at about 150 bytes a record, 0.6 MB.
const DefaultCapacity = 4096

// SourceSelf is Arrival.Source for the node's own publication.
const SourceSelf = "self"

// Option configures New.
type Option func(*Log)

// WithCapacity sets how many versions the Log remembers (at least 1).
func WithCapacity(n int) Option {
	return func(l *Log) {
		if n > 0 {
			l.ring = make([]nodeapi.Arrival, 0, n)
		}
	}
}

// WithClock sets the time source (default time.Now).
func WithClock(now func() time.Time) Option { return func(l *Log) { l.now = now } }

type key struct {
	agent string
	seq   uint64
}

// Log is a bounded record of first arrivals, keyed by agent id and seq.
// It is safe for concurrent use.
type Log struct {
	now func() time.Time

	mu    sync.Mutex
	ring  []nodeapi.Arrival // in arrival order from next, once full
	next  int               // where the next record goes once full
	index map[key]int       // position in ring
}

// New returns an empty Log.
func New(opts ...Option) *Log {
	l := &Log{now: time.Now, ring: make([]nodeapi.Arrival, 0, DefaultCapacity), index: make(map[key]int)}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Note records that version seq of agent's card arrived now through
// source, unless that version arrived before. It reports whether this is
// the version's first record. Once the Log is full the oldest record
// makes room.
func (l *Log) Note(agent string, seq uint64, source string) bool {
	k := key{agent, seq}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.index[k]; ok {
		return false
	}
	a := nodeapi.Arrival{Agent: agent, Seq: seq, At: l.now(), Source: source}
	if len(l.ring) < cap(l.ring) {
		l.index[k] = len(l.ring)
		l.ring = append(l.ring, a)
		return true
	}
	old := l.ring[l.next]
	delete(l.index, key{old.Agent, old.Seq})
	l.ring[l.next] = a
	l.index[k] = l.next
	l.next = (l.next + 1) % len(l.ring)
	return true
}

// List returns the records of the given agents (all records when none
// is given), oldest first.
func (l *Log) List(agents ...string) []nodeapi.Arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := make(map[string]bool, len(agents))
	for _, a := range agents {
		want[a] = true
	}
	out := make([]nodeapi.Arrival, 0, min(len(l.ring), 64))
	for i := range l.ring {
		a := l.ring[(l.next+i)%len(l.ring)]
		if len(want) == 0 || want[a.Agent] {
			out = append(out, a)
		}
	}
	return out
}

// Len returns how many versions the Log holds.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ring)
}
