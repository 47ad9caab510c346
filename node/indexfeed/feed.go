package indexfeed

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/liveness"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/store"
)

const (
	// FeedBuffer is the store change feed's channel buffer.
	FeedBuffer = 256
	// CallQueue bounds the call outcomes waiting to be written.
	CallQueue = 1024
	// IndexWait bounds how long AwaitIndexed waits.
	IndexWait = 2 * time.Second
	// connBuffer is the event bus buffer of connection changes.
	connBuffer = 256
)

// Index is what the feed writes to: the discovery index
// (node/discovery.Discovery).
type Index interface {
	Put(c *adp.Card, indexedAt, expiresAt time.Time) error
	// Touch moves the times of the card the index holds; false when it
	// holds another version.
	Touch(agentID string, c *adp.Card, indexedAt, expiresAt time.Time) bool
	Remove(agentID string) bool
	// Holds reports whether the index holds c or a card superseding it.
	Holds(c *adp.Card) bool
	SetSignals(agentID string, s scoring.Signals)
}

// Breakers is the invocation layer's circuit breaker state per peer
// (aitp.Client).
type Breakers interface {
	BreakerState(p peer.ID) aitp.BreakerState
}

// Config is what a Feed reads and writes. Every field but Log,
// OnIndexed and OnRemoved is required.
type Config struct {
	Store    *store.Store
	Index    Index
	Live     *liveness.Tracker
	Host     host.Host // its connections and their events
	Breakers Breakers
	Log      *slog.Logger
	// OnIndexed is called with each card the feed hands to the index,
	// after its signals.
	OnIndexed func(*adp.Card)
	// OnRemoved is called with the agent id of each card that leaves
	// the store.
	OnRemoved func(agentID string)
}

// Feed keeps the index in step with the store and the node's
// observations. It is safe for concurrent use.
type Feed struct {
	cfg     Config
	indexed *signal // notified each time the follower applies a change
	calls   chan call

	sigMu sync.Mutex // serialises pushes; taken before mu, never inside it

	mu       sync.Mutex
	inflight map[string]int // calls in flight per agent id
	started  bool
	closed   bool
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New returns a Feed; it starts nothing.
func New(cfg Config) *Feed {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.OnIndexed == nil {
		cfg.OnIndexed = func(*adp.Card) {}
	}
	if cfg.OnRemoved == nil {
		cfg.OnRemoved = func(string) {}
	}
	return &Feed{cfg: cfg, indexed: newSignal(), calls: make(chan call, CallQueue), inflight: make(map[string]int)}
}

// Start subscribes to the store's changes, replays the held cards into
// the index, subscribes to the host's connection events (after the
// replay, so that no event waits unread behind it: the event bus blocks
// its sender on a full subscriber) and starts the feed's goroutines. It
// returns once the replay is done, so the index holds every stored card.
// ctx bounds the replay only. A Start while another runs or after one
// that succeeded is a no op; after one that failed it tries again; after
// Close it returns ErrClosed. Close waits for a replay in progress.
func (f *Feed) Start(ctx context.Context) error {
	f.mu.Lock()
	switch {
	case f.closed:
		f.mu.Unlock()
		return ErrClosed
	case f.started:
		f.mu.Unlock()
		return nil
	}
	f.started = true
	f.wg.Add(1) // the replay: Close waits for it
	f.mu.Unlock()
	defer f.wg.Done()
	failed := func(err error) error {
		f.mu.Lock()
		f.started = false // a later Start may try again
		f.mu.Unlock()
		return err
	}
	changes, unsubscribe := f.cfg.Store.Subscribe(FeedBuffer)
	err := f.cfg.Store.Cards(ctx, func(r *store.Record) bool {
		f.index(r)
		return true
	})
	if err != nil {
		unsubscribe()
		return failed(err)
	}
	conns, err := f.cfg.Host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged), eventbus.BufSize(connBuffer))
	if err != nil {
		unsubscribe()
		return failed(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		unsubscribe()
		return errors.Join(ErrClosed, conns.Close())
	}
	life, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.goRun(func() {
		defer unsubscribe()
		f.follow(life, changes)
	})
	f.goRun(func() { f.writeCalls(life) })
	f.goRun(func() { f.watchConns(life, conns) })
	return nil
}

// goRun runs fn in a goroutine Close waits for; f.mu is held.
func (f *Feed) goRun(fn func()) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		fn()
	}()
}

// Close stops the feed's goroutines and waits for them and for a replay
// in progress; it closes the subscriptions Start made. It is idempotent
// and returns nil.
func (f *Feed) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	cancel := f.cancel
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	f.wg.Wait()
	return nil
}

// follow applies the store's changes until ctx ends.
func (f *Feed) follow(ctx context.Context, changes <-chan store.Change) {
	for {
		select {
		case <-ctx.Done():
			return
		case ch, ok := <-changes:
			if !ok {
				return
			}
			f.apply(ch)
			f.indexed.notify()
		}
	}
}

// apply applies one change of the store's feed.
func (f *Feed) apply(ch store.Change) {
	switch ch.Kind {
	case store.Upserted:
		if ch.Record != nil {
			f.index(ch.Record)
		}
	case store.Refreshed:
		// The held card again: move its times, do not analyse it again.
		if r := ch.Record; r != nil && !f.cfg.Index.Touch(r.AgentID, r.Card, r.ReceivedAt, r.ExpiresAt) {
			f.index(r)
		}
	case store.Removed:
		f.cfg.Index.Remove(ch.AgentID)
		f.cfg.Live.Forget(ch.AgentID)
		f.sigMu.Lock()
		f.cfg.Index.SetSignals(ch.AgentID, scoring.Signals{}) // pushed again if the card returns
		f.sigMu.Unlock()
		f.cfg.OnRemoved(ch.AgentID)
	}
}

// index hands a stored card and its stored signals to the index.
func (f *Feed) index(r *store.Record) {
	if err := f.cfg.Index.Put(r.Card, r.ReceivedAt, r.ExpiresAt); err != nil {
		f.cfg.Log.Debug("index card", "agent", r.AgentID, "err", err)
	}
	f.pushStored(r.AgentID)
	f.cfg.OnIndexed(r.Card)
}

// AwaitIndexed waits until the index holds each of cards (or a card that
// supersedes it), ctx ends or IndexWait passes. The store's feed indexes
// a stored card a moment after the write; a caller that stored cards and
// is about to rank them waits for this.
func (f *Feed) AwaitIndexed(ctx context.Context, cards ...*adp.Card) {
	if len(cards) == 0 {
		return
	}
	t := time.NewTimer(IndexWait)
	defer t.Stop()
	for _, c := range cards {
		for !c.IsRevocation() {
			changed := f.indexed.wait()
			if f.cfg.Index.Holds(c) {
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
