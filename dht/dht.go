package dht

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ipfs/go-cid"
	kaddht "github.com/libp2p/go-libp2p-kad-dht"
	record "github.com/libp2p/go-libp2p-record"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/routing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/poll"
)

// DHT publishes and finds Agent Cards. It is safe for concurrent use.
// Close stops the republish loop, waits for it and closes the kad-dht
// instance; the host stays open.
type DHT struct {
	h   host.Host
	kad *kaddht.IpfsDHT
	cfg config

	ctx    context.Context // cancelled by Close; bounds background work
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	cards map[peer.ID]*adp.Card // remembered for republishing
	// putAt is when each remembered card last reached the network (a put
	// that succeeded and announced every provider key of the card): a
	// republish round skips a card put within half the interval before
	// it, so that a card put just before a round is not put again at once.
	putAt map[peer.ID]time.Time
	// provided is when each tag key was last announced as a provider
	// record, and the routing table's size then; a put within the
	// republish interval does not announce it again unless the table has
	// more than doubled since (emptied at each republish, which announces
	// every key).
	provided map[cid.Cid]announced
	closed   bool

	memo     *memoValidator      // the validator kad-dht runs
	incoming chan incomingRecord // nil without an OnCard sink

	puts, republished, republishFailed, gets, getMisses atomic.Uint64
	incomingCards, incomingDropped, incomingInvalid     atomic.Uint64
	putsRefused, provides                               atomic.Uint64

	collector *collector // registered on cfg.reg; nil without Registerer

	closeOnce sync.Once
	closeErr  error
}

// Stats counts a DHT's operations since New.
type Stats struct {
	Puts            uint64 // successful PutCard calls
	Republished     uint64 // cards put again by the republish loop
	RepublishFailed uint64 // republish attempts that failed
	Gets            uint64 // GetCard calls that returned a card
	GetMisses       uint64 // GetCard calls that found none
	IncomingCards   uint64 // valid cards peers put here, handed to OnCard
	IncomingDropped uint64 // records put here while the queue was full
	IncomingInvalid uint64 // records put here that failed Validate
	PutsRefused     uint64 // card and provider puts dropped by WithPutLimit
	Provides        uint64 // provider records announced (one per tag key)
}

// Stats returns the operation counters.
func (d *DHT) Stats() Stats {
	return Stats{
		Puts:            d.puts.Load(),
		Republished:     d.republished.Load(),
		RepublishFailed: d.republishFailed.Load(),
		Gets:            d.gets.Load(),
		GetMisses:       d.getMisses.Load(),
		IncomingCards:   d.incomingCards.Load(),
		IncomingDropped: d.incomingDropped.Load(),
		Provides:        d.provides.Load(),
		IncomingInvalid: d.incomingInvalid.Load(),
		PutsRefused:     d.putsRefused.Load(),
	}
}

// New starts a DHT on h with the adpcard validator. It does not connect to
// anything: call Bootstrap.
func New(h host.Host, opts ...Option) (*DHT, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	memo := newMemoValidator(memoSize, cfg.check)
	// Only the adpcard namespace: with a prefix other than the public
	// /ipfs one, kad-dht v0.42 requires neither the pk nor the ipns
	// validator, and a node has no use for foreign records.
	kopts := []kaddht.Option{
		kaddht.ProtocolPrefix(ProtocolPrefix),
		kaddht.Validator(record.NamespacedValidator{Namespace: memo}),
		kaddht.Mode(kadMode(cfg.mode)),
	}
	if len(cfg.bootstrap) > 0 {
		kopts = append(kopts, kaddht.BootstrapPeers(cfg.bootstrap...))
	}
	if cfg.noRefresh {
		kopts = append(kopts, kaddht.DisableAutoRefresh())
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &DHT{
		h:        h,
		cfg:      cfg,
		ctx:      ctx,
		cancel:   cancel,
		cards:    make(map[peer.ID]*adp.Card),
		putAt:    make(map[peer.ID]time.Time),
		provided: make(map[cid.Cid]announced),
		memo:     memo,
	}
	if cfg.onCard != nil {
		d.incoming = make(chan incomingRecord, IncomingQueue)
	}
	if cfg.onCard != nil || cfg.putLimit != nil {
		kopts = append(kopts, kaddht.OnRequestHook(d.onRequest))
	}
	kad, err := kaddht.New(h, kopts...)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("dht: start kad-dht: %w", err)
	}
	d.kad = kad
	if cfg.reg != nil {
		d.collector = newCollector(d)
		if err := cfg.reg.Register(d.collector); err != nil {
			cancel()
			return nil, errors.Join(fmt.Errorf("dht: register metrics: %w", err), kad.Close())
		}
	}
	d.wg.Add(1)
	go d.republishLoop()
	if d.incoming != nil {
		d.wg.Add(1)
		go d.incomingLoop()
	}
	return d, nil
}

func kadMode(m ModeOpt) kaddht.ModeOpt {
	switch m {
	case ModeClient:
		return kaddht.ModeClient
	case ModeServer:
		return kaddht.ModeServer
	default:
		return kaddht.ModeAuto
	}
}

// Bootstrap connects to the bootstrap peers (failures are tolerated while
// one succeeds or the host already has peers), waits until the routing
// table is non-empty, then refreshes it and waits for the refresh.
func (d *DHT) Bootstrap(ctx context.Context) error {
	if d.isClosed() {
		return ErrClosed
	}
	var errs []error
	for _, ai := range d.cfg.bootstrap {
		if ai.ID == d.h.ID() {
			continue
		}
		if err := d.h.Connect(ctx, ai); err != nil {
			d.cfg.log.Debug("bootstrap connect failed", "peer", ai.ID, "err", err)
			errs = append(errs, err)
		}
	}
	if len(d.h.Network().Peers()) == 0 {
		return fmt.Errorf("%w: %w", ErrNoPeers, errors.Join(errs...))
	}
	if err := poll.Until(ctx, 0, poll.Cond("a routing table entry", func() bool { return d.kad.RoutingTable().Size() > 0 })); err != nil {
		return fmt.Errorf("%w: %w", ErrNoPeers, err)
	}
	select {
	case err := <-d.kad.RefreshRoutingTable():
		if err != nil {
			return fmt.Errorf("dht: refresh routing table: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FindPeer looks up p's current addresses: from a live connection, or
// from the DHT servers closest to p, which answer with the addresses they
// hold for p even when p is a client (so a private peer is found at its
// relay addresses). A node uses it to find a peer again after its
// addresses changed.
func (d *DHT) FindPeer(ctx context.Context, p peer.ID) (peer.AddrInfo, error) {
	if d.isClosed() {
		return peer.AddrInfo{}, ErrClosed
	}
	ai, err := d.kad.FindPeer(ctx, p)
	if err != nil {
		return peer.AddrInfo{}, fmt.Errorf("dht: find peer %s: %w", p, err)
	}
	return ai, nil
}

// Ping sends one DHT ping to p: a single request and response on the DHT
// protocol, the floor under any lookup's latency.
func (d *DHT) Ping(ctx context.Context, p peer.ID) error {
	if d.isClosed() {
		return ErrClosed
	}
	if err := d.kad.Ping(ctx, p); err != nil {
		return fmt.Errorf("dht: ping %s: %w", p, err)
	}
	return nil
}

// RoutingTableSize returns the number of peers in the routing table.
func (d *DHT) RoutingTableSize() int { return d.kad.RoutingTable().Size() }

// PutCard stores a signed card under its key on the closest peers,
// announces its skill tags and their parent paths as provider records
// (none for a revocation; a key announced within the republish interval
// is not announced again) and remembers it for the republish loop. It
// fails before touching the network when the card does not pass Validate
// or is older than a card already put for the agent (ErrOlder). A card
// that failed to reach the network is still remembered: the republish loop
// retries it.
func (d *DHT) PutCard(ctx context.Context, c *adp.Card) error {
	if d.isClosed() {
		return ErrClosed
	}
	p, err := d.check(c)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if prev := d.cards[p]; prev != nil && adp.Compare(c, prev) < 0 {
		d.mu.Unlock()
		return fmt.Errorf("%w: agent %s", ErrOlder, adp.AgentID(p))
	}
	d.cards[p] = c
	delete(d.putAt, p) // stamped once c itself has reached the network
	d.mu.Unlock()
	all, err := d.put(ctx, p, c)
	if err != nil {
		return err
	}
	d.puts.Add(1)
	if all { // else the next round announces the keys left out
		d.stampPut(p, c)
	}
	return nil
}

// stampPut records that c, when it is still the remembered card of p,
// reached the network now.
func (d *DHT) stampPut(p peer.ID, c *adp.Card) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cards[p] == c {
		d.putAt[p] = time.Now()
	}
}

// check validates c as a remote peer would, through the validator kad-dht
// runs, so that PutValue's own check of the same bytes is remembered.
func (d *DHT) check(c *adp.Card) (peer.ID, error) {
	if c == nil || c.Raw() == nil {
		return "", fmt.Errorf("dht: put: %w", adp.ErrUnsigned)
	}
	p, err := c.PeerID()
	if err != nil {
		return "", fmt.Errorf("dht: put: %w", err)
	}
	if _, err := d.memo.validate(Key(p), c.Raw()); err != nil {
		return "", fmt.Errorf("dht: put: %w", err)
	}
	return p, nil
}

// put puts c under p's key and announces its provider records but those
// announced lately; all reports whether none was left out so.
func (d *DHT) put(ctx context.Context, p peer.ID, c *adp.Card) (all bool, err error) {
	if err := d.kad.PutValue(ctx, Key(p), c.Raw()); err != nil {
		return false, fmt.Errorf("dht: put card of %s: %w", p, err)
	}
	if c.IsRevocation() {
		return true, nil
	}
	all = true
	var errs []error
	for _, tag := range provideKeys(d.cfg.tags, c.Skills) {
		k, err := TagCID(tag)
		if err != nil {
			continue // provideKeys already bounds length
		}
		if d.providedLately(k) {
			all = false
			continue
		}
		if err := d.kad.Provide(ctx, k, true); err != nil {
			errs = append(errs, fmt.Errorf("dht: provide tag %q: %w", tag, err))
			continue
		}
		d.provides.Add(1)
		d.mu.Lock()
		d.provided[k] = announced{at: time.Now(), peers: d.kad.RoutingTable().Size()}
		d.mu.Unlock()
	}
	return all, errors.Join(errs...)
}

// announced is when a provider record was announced, and how many peers
// the routing table held then.
type announced struct {
	at    time.Time
	peers int
}

// providedLately reports whether k was announced within the republish
// interval with a routing table at least half as large as now: its
// provider records are still fresh on the network and sit about where a
// lookup now looks. (kad-dht's Provide does not say how many peers took
// a record, so a node that announced with a near-empty table at its
// start announces again once it knows the network.)
func (d *DHT) providedLately(k cid.Cid) bool {
	d.mu.Lock()
	a, ok := d.provided[k]
	d.mu.Unlock()
	return ok && time.Since(a.at) < d.cfg.republish && d.kad.RoutingTable().Size() <= 2*a.peers
}

// Forget stops republishing the card of agentID. The records already put
// expire on their own.
func (d *DHT) Forget(agentID string) error {
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.cards, p)
	delete(d.putAt, p)
	d.mu.Unlock()
	return nil
}

// GetCard looks up the card of agentID (any form adp.PeerIDFromAgentID
// accepts). It returns ErrNotFound when no peer has one. The card passed
// the validator when kad-dht received it; it is handed once to the OnCard
// sink, which stores it (the node's sink does not verify it again), before
// GetCard returns it. A node refreshing a stale card calls it.
func (d *DHT) GetCard(ctx context.Context, agentID string, opts ...GetOption) (*adp.Card, error) {
	if d.isClosed() {
		return nil, ErrClosed
	}
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		return nil, fmt.Errorf("dht: get: %w", err)
	}
	key := Key(p)
	gc := getConfig{quorum: d.cfg.quorum}
	for _, o := range opts {
		o(&gc)
	}
	var ropts []routing.Option
	if gc.quorum > 0 {
		ropts = append(ropts, kaddht.Quorum(gc.quorum))
	}
	raw, err := d.kad.GetValue(ctx, key, ropts...)
	if err != nil {
		if errors.Is(err, routing.ErrNotFound) {
			d.getMisses.Add(1)
			return nil, fmt.Errorf("%w: %s", ErrNotFound, agentID)
		}
		return nil, fmt.Errorf("dht: get card of %s: %w", p, err)
	}
	c, err := d.memo.validate(key, raw)
	if err != nil {
		return nil, err
	}
	d.gets.Add(1)
	if d.cfg.onCard != nil {
		d.cfg.onCard(c)
	}
	return c, nil
}

// FindByTag returns up to limit agents (DefaultFindLimit when limit <= 0,
// at most MaxFindLimit) that announced tag or a tag below it: finding
// "nlp" reaches an agent with "nlp/translation". The tag is normalized
// by the taxonomy as announcing does, so "py" finds an agent that
// announced "Python" (both are "coding/python"). The answer is a hint: provider records outlive a
// revocation or a dropped skill until they expire, so check each agent's
// card before using it.
func (d *DHT) FindByTag(ctx context.Context, tag string, limit int) ([]peer.AddrInfo, error) {
	if d.isClosed() {
		return nil, ErrClosed
	}
	if limit <= 0 {
		limit = DefaultFindLimit
	}
	limit = min(limit, MaxFindLimit)
	k, err := TagCID(d.cfg.tags.Normalize(tag))
	if err != nil {
		return nil, err
	}
	var out []peer.AddrInfo
	for ai := range d.kad.FindProvidersAsync(ctx, k, limit) {
		out = append(out, ai)
	}
	if len(out) == 0 && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, nil
}

func (d *DHT) republishLoop() {
	defer d.wg.Done()
	t := time.NewTicker(d.cfg.republish)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
			d.republish()
		}
	}
}

// republish puts every remembered card again, but those put within half
// the republish interval (their records are fresh; the next round puts
// them), and announces their provider records again.
func (d *DHT) republish() {
	d.mu.Lock()
	clear(d.provided) // every key of a card put in this round is announced again
	cards := make(map[peer.ID]*adp.Card, len(d.cards))
	for p, c := range d.cards {
		if at, ok := d.putAt[p]; !ok || time.Since(at) >= d.cfg.republish/2 {
			cards[p] = c
		}
	}
	d.mu.Unlock()
	for p, c := range cards {
		ctx, cancel := context.WithTimeout(d.ctx, d.cfg.republish)
		_, err := d.put(ctx, p, c) // provided was cleared: every key is announced
		cancel()
		if err != nil {
			d.republishFailed.Add(1)
			d.cfg.log.Debug("republish failed", "agent", adp.AgentID(p), "err", err)
		} else {
			d.republished.Add(1)
			d.stampPut(p, c)
		}
		if d.ctx.Err() != nil {
			return
		}
	}
}

func (d *DHT) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// Close stops the republish loop, waits for it and closes kad-dht. It is
// idempotent; the host is left open.
func (d *DHT) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		d.mu.Unlock()
		d.cancel()
		d.wg.Wait()
		if d.collector != nil {
			d.cfg.reg.Unregister(d.collector)
		}
		d.closeErr = d.kad.Close()
	})
	return d.closeErr
}
