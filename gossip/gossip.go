package gossip

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// Gossip publishes and receives Agent Cards on the cards topic. It is safe
// for concurrent use. Close cancels the subscription, leaves the topic,
// stops the GossipSub router and waits for the delivery and rebroadcast
// goroutines; the host stays open.
type Gossip struct {
	h      host.Host
	self   peer.ID
	cfg    config
	ps     *pubsub.PubSub
	topic  *pubsub.Topic
	sub    *pubsub.Subscription
	count  *counters
	prom   *promMetrics
	mesh   *meshTracer
	recent *recent
	reject *rejections // the validator's Rejects, per relaying peer

	ctx         context.Context // the router's lifetime, cancelled last by Close
	cancel      context.CancelFunc
	loopCtx     context.Context // the rebroadcast loop's lifetime, cancelled first
	loopCancel  context.CancelFunc
	wg          sync.WaitGroup // the rebroadcast loop
	deliverDone chan struct{}  // closed when the delivery loop returns

	// vmu guards vclosed; validating counts the validator's calls in
	// flight, which Close waits for: none runs after Close returns (the
	// node closes the store the validator reads next).
	vmu        sync.RWMutex
	vclosed    bool
	validating sync.WaitGroup

	mu         sync.Mutex
	own        *adp.Card
	ownVer     uint64        // how many times own was set: PublishOwn's check for a newer card
	ownChanged chan struct{} // capacity 1: a pending change, to publish
	ownSent    chan struct{} // capacity 1: the own card was just published (PublishOwn)
	closed     bool

	closeOnce sync.Once
	closeErr  error
}

// New starts GossipSub on h with message signing (StrictSign) and peer
// scoring, joins Topic and subscribes to it. On error it tears down what
// it started.
func New(h host.Host, opts ...Option) (_ *Gossip, err error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if !cfg.jitterSet {
		cfg.jitter = time.Duration(float64(cfg.interval) * DefaultJitterFraction)
	}
	if cfg.jitter >= cfg.interval {
		return nil, fmt.Errorf("%w: jitter %v not below interval %v", ErrBadOption, cfg.jitter, cfg.interval)
	}
	if cfg.check == nil { // made here, not as a default that WithChecker would discard
		cfg.check = adp.NewChecker(maxVerified)
	}
	if cfg.score == nil {
		cfg.score, cfg.thresholds = ScoreParams(), ScoreThresholds()
	}

	ctx, cancel := context.WithCancel(context.Background())
	loopCtx, loopCancel := context.WithCancel(ctx)
	g := &Gossip{
		h:          h,
		self:       h.ID(),
		cfg:        cfg,
		count:      &counters{},
		ctx:        ctx,
		cancel:     cancel,
		loopCtx:    loopCtx,
		loopCancel: loopCancel,
		ownChanged: make(chan struct{}, 1),
		ownSent:    make(chan struct{}, 1),
		mesh:       newMeshTracer(),
		recent:     newRecent(cfg.now),
		reject:     newRejections(cfg.now),
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, g.teardown())
		}
	}()
	if cfg.metrics != nil {
		g.count.ext = append(g.count.ext, cfg.metrics)
	}
	if cfg.reg != nil {
		if g.prom, err = newPromMetrics(cfg.reg); err != nil {
			return nil, fmt.Errorf("gossip: register metrics: %w", err)
		}
		g.count.ext = append(g.count.ext, g.prom)
	}

	psOpts := append([]pubsub.Option{
		pubsub.WithMessageSignaturePolicy(pubsub.StrictSign),
		pubsub.WithMessageIdFn(MessageID),
		// A node's own card goes to every topic peer scored above the
		// publish threshold, not only to its mesh: the first hop reaches
		// all its neighbours at once (GossipSub v1.1's flood publishing, on
		// by default in js-libp2p and rust-libp2p, off in go-libp2p-pubsub).
		// Only a node's own, small and rare publications are flooded;
		// forwarding stays on the mesh.
		pubsub.WithFloodPublish(true),
		pubsub.WithPeerScore(g.scoreParams(), cfg.thresholds),
		// Under validation pressure, drop messages from peers whose
		// messages are mostly rejected or ignored.
		pubsub.WithPeerGater(pubsub.NewPeerGaterParams(
			pubsub.DefaultPeerGaterThreshold, pubsub.DefaultPeerGaterGlobalDecay, pubsub.DefaultPeerGaterSourceDecay)),
		pubsub.WithLogger(cfg.log),
		pubsub.WithRawTracer(g.mesh),
	}, cfg.psOpts...)
	if g.ps, err = pubsub.NewGossipSub(ctx, h, psOpts...); err != nil {
		return nil, fmt.Errorf("gossip: start gossipsub: %w", err)
	}
	if err = g.ps.RegisterTopicValidator(Topic, g.validate); err != nil {
		return nil, fmt.Errorf("gossip: register validator: %w", err)
	}
	if g.topic, err = g.ps.Join(Topic); err != nil {
		return nil, fmt.Errorf("gossip: join %s: %w", Topic, err)
	}
	if g.sub, err = g.topic.Subscribe(pubsub.WithBufferSize(SubscriptionBuffer)); err != nil {
		return nil, fmt.Errorf("gossip: subscribe %s: %w", Topic, err)
	}
	em, err := h.EventBus().Emitter(new(event.EvtPeerProtocolsUpdated))
	if err != nil {
		return nil, fmt.Errorf("gossip: event emitter: %w", err)
	}
	g.deliverDone = make(chan struct{})
	go g.deliverLoop()
	l, stop := followLinks(h.Network())
	g.wg.Add(2)
	go g.rebroadcastLoop()
	go g.repairLoop(em, l, stop)
	return g, nil
}

// scoreParams returns a copy of the configured score parameters whose
// application score includes the validator's rejection penalty.
func (g *Gossip) scoreParams() *pubsub.PeerScoreParams {
	p := *g.cfg.score
	app := p.AppSpecificScore
	p.AppSpecificScore = func(id peer.ID) float64 {
		s := g.reject.score(id)
		if app != nil {
			s += app(id)
		}
		return s
	}
	return &p
}

// Publish publishes a signed card of this node once. It does not wait for
// the topic to have peers: with none, nobody receives it (SetOwnCard
// waits).
func (g *Gossip) Publish(ctx context.Context, c *adp.Card) error {
	if g.isClosed() {
		return ErrClosed
	}
	if err := g.checkOwn(c); err != nil {
		return err
	}
	if err := g.topic.Publish(ctx, c.Raw()); err != nil {
		return fmt.Errorf("gossip: publish: %w", err)
	}
	return nil
}

func (g *Gossip) checkOwn(c *adp.Card) error {
	if c == nil || c.Raw() == nil {
		return fmt.Errorf("gossip: %w", adp.ErrUnsigned)
	}
	p, err := c.PeerID()
	if err != nil {
		return fmt.Errorf("gossip: %w", err)
	}
	if p != g.self {
		return fmt.Errorf("%w: card of %s", ErrNotOwner, p)
	}
	return nil
}

// SetOwnCard makes c the card this node re-broadcasts: it is published as
// soon as the topic mesh has a peer, then every RebroadcastInterval plus or
// minus Jitter, until another card replaces it or Close.
func (g *Gossip) SetOwnCard(c *adp.Card) error {
	if err := g.checkOwn(c); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosed
	}
	g.own = c
	g.ownVer++
	signal(g.ownChanged)
	return nil
}

// PublishOwn makes c the card this node re-broadcasts and, when the topic
// mesh has a peer, publishes it at once, the next re-broadcast following
// RebroadcastInterval plus or minus Jitter later. Without a mesh peer it
// is SetOwnCard: c is published as soon as the mesh has one. It is the
// one publication of a new version of the own card, where SetOwnCard and
// Publish together would make two.
func (g *Gossip) PublishOwn(ctx context.Context, c *adp.Card) error {
	if g.isClosed() {
		return ErrClosed
	}
	if err := g.checkOwn(c); err != nil {
		return err
	}
	if g.mesh.size() == 0 {
		return g.SetOwnCard(c)
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	g.own = c
	g.ownVer++
	ver := g.ownVer
	g.mu.Unlock()
	err := g.topic.Publish(ctx, c.Raw())
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("gossip: publish: %w", err)
	}
	if g.ownVer != ver {
		return err // another card was set meanwhile; its own signal publishes it
	}
	if err != nil {
		signal(g.ownChanged) // the loop publishes c
		return err
	}
	drain(g.ownChanged) // a change not yet published: c, just published, is the latest
	signal(g.ownSent)
	return nil
}

// drain takes a pending signal off ch, if there is one.
func drain(ch chan struct{}) {
	select {
	case <-ch:
	default:
	}
}

// signal sends on a channel of capacity 1 without waiting: a signal
// already pending stands for both.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// PubSub returns the GossipSub router, for other topics on the same host:
// a host can run only one router. Closing the Gossip stops it.
func (g *Gossip) PubSub() *pubsub.PubSub { return g.ps }

// Peers returns the peers known to be subscribed to the topic.
func (g *Gossip) Peers() []peer.ID { return g.topic.ListPeers() }

// MeshSize returns the number of peers in this node's mesh for the topic:
// those it forwards every card to. A publication made while it is 0 may
// reach only the direct neighbours.
func (g *Gossip) MeshSize() int { return g.mesh.size() }

// Stats returns the validation counters.
func (g *Gossip) Stats() Stats { return g.count.stats() }

// deliverLoop hands accepted cards to OnCard, and re-broadcasts of held
// cards to OnRefresh, until the subscription is cancelled.
func (g *Gossip) deliverLoop() {
	defer close(g.deliverDone)
	for {
		msg, err := g.sub.Next(g.ctx)
		if err != nil {
			return // subscription cancelled or Close
		}
		if msg.ReceivedFrom == g.self {
			continue // our own publication
		}
		switch v := msg.ValidatorData.(type) {
		case *adp.Card:
			if g.cfg.onCard != nil {
				g.cfg.onCard(v, msg.GetFrom())
			}
		case refreshed:
			if g.cfg.onRefresh != nil {
				g.cfg.onRefresh(v.c, msg.GetFrom())
			}
		}
	}
}

func (g *Gossip) rebroadcastLoop() {
	defer g.wg.Done()
	timer := time.NewTimer(0)
	if !timer.Stop() {
		<-timer.C
	}
	defer timer.Stop()
	for {
		select {
		case <-g.loopCtx.Done():
			return
		case <-g.ownSent:
			timer.Reset(g.nextWait()) // published by PublishOwn: the interval starts again
			continue
		case <-g.ownChanged:
		case <-timer.C:
		}
		if !g.publishOwn() {
			return
		}
		timer.Reset(g.nextWait())
	}
}

// publishOwn publishes the current own card once the topic mesh has a
// peer. It reports false when Close interrupted it.
func (g *Gossip) publishOwn() bool {
	if err := g.mesh.wait(g.loopCtx); err != nil {
		return false
	}
	g.mu.Lock()
	c := g.own
	drain(g.ownChanged) // set before this read: c is it, or newer
	g.mu.Unlock()
	if c == nil {
		return true
	}
	if err := g.topic.Publish(g.loopCtx, c.Raw()); err != nil {
		if g.loopCtx.Err() != nil {
			return false
		}
		g.cfg.log.Debug("rebroadcast failed", "topic", Topic, "err", err)
	}
	return true
}

// nextWait returns the interval plus a uniform deviation in [-jitter, +jitter].
func (g *Gossip) nextWait() time.Duration {
	if g.cfg.jitter <= 0 {
		return g.cfg.interval
	}
	return g.cfg.interval - g.cfg.jitter + rand.N(2*g.cfg.jitter+1)
}

func (g *Gossip) isClosed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Close leaves the topic, stops the router and waits for the goroutines.
// It is idempotent; the host is left open.
func (g *Gossip) Close() error {
	g.closeOnce.Do(func() {
		g.mu.Lock()
		g.closed = true
		g.mu.Unlock()
		g.closeErr = g.teardown()
	})
	return g.closeErr
}

// teardown stops, in order, the validator (and waits for its calls in
// flight), the rebroadcast loop, the subscription (and waits for the
// delivery loop to drain it), the topic, the router and the
// metrics. Every step tolerates a New that failed half way.
func (g *Gossip) teardown() error {
	var errs []error
	g.vmu.Lock()
	g.vclosed = true
	g.vmu.Unlock()
	g.loopCancel()
	g.wg.Wait()
	g.validating.Wait()
	if g.sub != nil {
		g.sub.Cancel()
		if g.deliverDone != nil {
			<-g.deliverDone
		}
	}
	if g.topic != nil {
		if err := g.topic.Close(); err != nil {
			errs = append(errs, fmt.Errorf("gossip: close topic: %w", err))
		}
	}
	g.cancel()
	if g.prom != nil && g.cfg.reg != nil {
		g.prom.unregister(g.cfg.reg)
	}
	return errors.Join(errs...)
}
