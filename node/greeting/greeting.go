package greeting

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/internal/p2phost"
)

const (
	// Concurrency bounds the greetings in flight.
	Concurrency = 8
	// Queue bounds the peers waiting for a greeting.
	Queue = 1024
	// MaxGreeted bounds the memory of greeted peers; past it the memory
	// starts again empty.
	MaxGreeted = 10000
	// Timeout bounds one greeting.
	Timeout = 10 * time.Second
	// eventBuffer is the event bus buffer of identifications.
	eventBuffer = 256
)

// Config is what a Greeter uses. Host, Protocol, Seq and Advertise are
// required.
type Config struct {
	Host host.Host
	// Protocol is the protocol a peer must speak to be greeted
	// (aitp.ProtocolID).
	Protocol protocol.ID
	// Seq returns the seq of the own card now.
	Seq func() uint64
	// Advertise sends the own card to p and reports whether p stored it.
	Advertise func(ctx context.Context, p peer.ID) (stored bool, err error)
	// Identified is called with every peer that speaks Protocol once
	// identified on a new connection (not again on a push of the peer's
	// identify), and at the start of Run with every one already
	// connected.
	Identified func(p peer.ID)
	// Behind is called when a greeted peer stored the card.
	Behind func()
	Log    *slog.Logger
}

// Greeter greets the peers of a host.
type Greeter struct {
	cfg  Config
	sub  event.Subscription
	once sync.Once

	mu      sync.Mutex
	greeted map[peer.ID]uint64 // peers sent the own card, by card seq
}

// New subscribes to the host's identifications.
func New(cfg Config) (*Greeter, error) {
	if cfg.Host == nil || cfg.Protocol == "" || cfg.Seq == nil || cfg.Advertise == nil {
		return nil, fmt.Errorf("%w: Host, Protocol, Seq and Advertise are required", ErrBadConfig)
	}
	if cfg.Identified == nil {
		cfg.Identified = func(peer.ID) {}
	}
	if cfg.Behind == nil {
		cfg.Behind = func() {}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	sub, err := cfg.Host.EventBus().Subscribe(new(event.EvtPeerIdentificationCompleted), eventbus.BufSize(eventBuffer))
	if err != nil {
		return nil, err
	}
	return &Greeter{cfg: cfg, sub: sub, greeted: make(map[peer.ID]uint64)}, nil
}

// Close ends the subscription. It is idempotent.
func (g *Greeter) Close() error {
	var err error
	g.once.Do(func() { err = g.sub.Close() })
	return err
}

// Run greets the peers already identified as speaking the protocol, then
// each newly identified one, until ctx ends; it then waits for the
// greetings in flight and closes the subscription.
//
// The event loop never waits for a greeting: it queues the peer (at most
// Queue of them; past that a peer is left for its next identification)
// and Concurrency workers greet them. A loop that waited would, with
// every worker held by peers that never answer, stop reading the host's
// identifications, and the event bus would then hold up identify for
// every connection of the host.
func (g *Greeter) Run(ctx context.Context) {
	defer g.Close()
	queue := make(chan peer.ID, Queue)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range Concurrency {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case p := <-queue:
					g.greet(ctx, p)
				}
			}
		})
	}
	self := g.cfg.Host.ID()
	// identified are the connections already handed to Identified:
	// identify runs again on a connection for every push of the peer
	// (new addresses, new protocols), which is no new connection.
	identified := make(map[string]struct{})
	offer := func(p peer.ID, conn network.Conn) {
		if p == self {
			return
		}
		if conn == nil {
			g.cfg.Identified(p)
		} else if _, ok := identified[conn.ID()]; !ok {
			if len(identified) >= MaxGreeted {
				clear(identified)
			}
			identified[conn.ID()] = struct{}{}
			g.cfg.Identified(p)
		}
		if !g.mark(p) {
			return
		}
		select {
		case queue <- p:
		default:
			g.unmark(p) // greeted at its next identification
			g.cfg.Log.Debug("greeting queue full", "peer", p)
		}
	}
	for _, p := range p2phost.PeersSpeaking(g.cfg.Host, g.cfg.Protocol) {
		offer(p, nil)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-g.sub.Out():
			if !ok {
				return
			}
			if e, isID := ev.(event.EvtPeerIdentificationCompleted); isID && slices.Contains(e.Protocols, g.cfg.Protocol) {
				offer(e.Peer, e.Conn)
			}
		}
	}
}

// greet sends the own card to p, within Timeout; a failure unmarks p, to
// be greeted at its next identification.
func (g *Greeter) greet(ctx context.Context, p peer.ID) {
	actx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	stored, err := g.cfg.Advertise(actx, p)
	if err != nil {
		g.cfg.Log.Debug("greet peer", "peer", p, "err", err)
		g.unmark(p)
	}
	if stored {
		g.cfg.Behind()
	}
}

// Greeted reports whether p was sent the current card or is being sent
// it.
func (g *Greeter) Greeted(p peer.ID) bool {
	seq := g.cfg.Seq()
	g.mu.Lock()
	defer g.mu.Unlock()
	got, ok := g.greeted[p]
	return ok && got >= seq
}

// mark records that p gets the current card and reports whether it had
// not got it yet.
func (g *Greeter) mark(p peer.ID) bool {
	seq := g.cfg.Seq()
	g.mu.Lock()
	defer g.mu.Unlock()
	if got, ok := g.greeted[p]; ok && got >= seq {
		return false
	}
	if len(g.greeted) >= MaxGreeted {
		clear(g.greeted)
	}
	g.greeted[p] = seq
	return true
}

func (g *Greeter) unmark(p peer.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.greeted, p)
}
