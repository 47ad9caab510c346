package peering

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
)

// Peering keeps a host connected (see the package documentation). It is
// safe for concurrent use; Close stops the loop, mDNS and every dial, and
// saves the book.
type Peering struct {
	h     host.Host
	cfg   config
	book  *book
	sched *schedule
	sub   event.Subscription
	mdns  mdns.Service

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	dials  chan struct{} // semaphore of MaxDials

	mu      sync.Mutex
	started bool
	closed  bool

	closeOnce sync.Once
	closeErr  error
}

// New reads the book, lends its addresses to h's peerstore and subscribes
// to peer identification. It starts nothing: see Start.
func New(h host.Host, opts ...Option) (*Peering, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	b, err := loadBook(cfg.knownPath, cfg.maxKnown)
	if err != nil {
		cfg.log.Warn("known peers unreadable; starting with none", "err", err)
	}
	sub, err := h.EventBus().Subscribe(new(event.EvtPeerIdentificationCompleted), eventbus.BufSize(256))
	if err != nil {
		return nil, fmt.Errorf("peering: subscribe to identification: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Peering{
		h:      h,
		cfg:    cfg,
		book:   b,
		sched:  newSchedule(cfg.backoff, rand.Float64),
		sub:    sub,
		ctx:    ctx,
		cancel: cancel,
		dials:  make(chan struct{}, cfg.maxDials),
	}
	for _, ai := range b.list() {
		if ai.ID != h.ID() {
			h.Peerstore().AddAddrs(ai.ID, ai.Addrs, peerstore.RecentlyConnectedAddrTTL)
		}
	}
	return p, nil
}

// Start starts the loop (its first round at once), the book's recorder
// and, when asked, mDNS.
func (p *Peering) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if p.started {
		return nil
	}
	p.started = true
	if p.cfg.mdns != "" {
		p.mdns = mdns.NewMdnsService(p.h, p.cfg.mdns, notifee{p})
		if err := p.mdns.Start(); err != nil {
			p.cfg.log.Warn("mdns not started", "err", err)
			p.mdns = nil
		}
	}
	p.wg.Add(2)
	go p.record()
	go p.loop()
	return nil
}

// Known returns the known peers, most recently seen first.
func (p *Peering) Known() []peer.AddrInfo { return p.book.list() }

// Close stops the loop, mDNS and the dials under way, waits for them and
// saves the book. It is idempotent.
func (p *Peering) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		m := p.mdns
		p.mu.Unlock()
		var errs []error
		if m != nil {
			errs = append(errs, m.Close())
		}
		p.cancel()
		errs = append(errs, p.sub.Close())
		p.wg.Wait()
		errs = append(errs, p.book.save())
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}

// record notes every identified peer in the book until Close.
func (p *Peering) record() {
	defer p.wg.Done()
	for {
		select {
		case <-p.ctx.Done():
			return
		case ev, ok := <-p.sub.Out():
			if !ok {
				return
			}
			if e, is := ev.(event.EvtPeerIdentificationCompleted); is && e.Peer != p.h.ID() {
				p.book.note(e.Peer, e.ListenAddrs, p.cfg.now())
			}
		}
	}
}

// loop runs a round every Interval and saves the book every SaveInterval.
func (p *Peering) loop() {
	defer p.wg.Done()
	tick := time.NewTicker(p.cfg.interval)
	defer tick.Stop()
	save := time.NewTicker(p.cfg.saveInterval)
	defer save.Stop()
	for {
		p.round()
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
		case <-save.C:
			if err := p.book.save(); err != nil {
				p.cfg.log.Warn("save known peers", "err", err)
			}
		}
	}
}

// round dials every target that is not connected and due: the bootstrap
// peers always, the known peers while the host has fewer than MinPeers
// connections.
func (p *Peering) round() {
	targets := p.cfg.bootstrap
	if len(p.h.Network().Peers()) < p.cfg.minPeers {
		targets = append(append([]peer.AddrInfo(nil), targets...), p.book.list()...)
	}
	now := p.cfg.now()
	for _, ai := range targets {
		if ai.ID == p.h.ID() || p.h.Network().Connectedness(ai.ID) == network.Connected {
			continue
		}
		if !p.sched.begin(ai.ID, now) {
			continue
		}
		select {
		case p.dials <- struct{}{}:
		case <-p.ctx.Done():
			return
		}
		p.wg.Add(1)
		go func() {
			defer func() { <-p.dials; p.wg.Done() }()
			p.dial(ai)
		}()
	}
}

// dial connects to ai, or schedules the next attempt and asks the Finder
// for ai's current addresses.
func (p *Peering) dial(ai peer.AddrInfo) {
	// Our schedule paces the attempts; libp2p's own dial backoff would
	// refuse a peer that came back before it expires.
	if sw, ok := p.h.Network().(*swarm.Swarm); ok {
		sw.Backoff().Clear(ai.ID)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.dialTimeout)
	defer cancel()
	err := p.h.Connect(ctx, ai)
	if err == nil {
		p.sched.succeeded(ai.ID, p.cfg.now())
		return
	}
	if p.ctx.Err() != nil {
		return
	}
	wait := p.sched.failed(ai.ID, p.cfg.now())
	p.cfg.log.Debug("peer unreachable", "peer", ai.ID, "retry_in", wait, "err", err)
	p.find(ctx, ai.ID)
}

// find asks the Finder for p's current addresses and lends them to the
// peerstore, for the next attempt and for every other dial.
func (p *Peering) find(ctx context.Context, id peer.ID) {
	if p.cfg.finder == nil {
		return
	}
	found, err := p.cfg.finder(ctx, id)
	if err != nil || len(found.Addrs) == 0 {
		return
	}
	p.h.Peerstore().AddAddrs(id, found.Addrs, peerstore.RecentlyConnectedAddrTTL)
}

// notifee dials the peers mDNS finds.
type notifee struct{ p *Peering }

func (n notifee) HandlePeerFound(ai peer.AddrInfo) {
	p := n.p
	if ai.ID == p.h.ID() || p.h.Network().Connectedness(ai.ID) == network.Connected {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.dialTimeout)
		defer cancel()
		if err := p.h.Connect(ctx, ai); err != nil {
			p.cfg.log.Debug("mdns peer unreachable", "peer", ai.ID, "err", err)
		}
	}()
}
