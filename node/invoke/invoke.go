package invoke

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
	"github.com/adpnode/adpnode/node/route"
)

const (
	// maxRedials bounds the attempts Call makes after its first: one
	// after re-learning the peer's addresses, one more if that attempt
	// joined a dial begun before they were learned.
	maxRedials = 2
	// findPeerTimeout bounds the DHT lookup of a peer's addresses on a call.
	findPeerTimeout = 3 * time.Second
)

// Cards gives the card a node holds for an agent, or nil
// (store.Store.Held).
type Cards interface {
	Held(agentID string) *adp.Card
}

// PeerFinder looks a peer's current addresses up (dht.DHT.FindPeer).
type PeerFinder interface {
	FindPeer(ctx context.Context, p peer.ID) (peer.AddrInfo, error)
}

// Config is what a Caller reaches agents with. Every field but Log is
// required.
type Config struct {
	Host   host.Host
	Client *aitp.Client
	A2A    *a2aclient.Client
	Cards  Cards
	Finder PeerFinder
	// LearnAddrs adds the libp2p addresses on the held card of p (agent
	// agentID) to the peerstore and reports whether any was new.
	LearnAddrs func(p peer.ID, agentID string) bool
	// Log receives a Debug line for each target skipped and each failed
	// lookup; nil discards.
	Log *slog.Logger
}

// Caller calls tools of other agents (see the package documentation).
// Safe for concurrent use.
type Caller struct {
	cfg Config
	log *slog.Logger
}

// New returns a Caller over cfg.
func New(cfg Config) *Caller {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Caller{cfg: cfg, log: log}
}

// Invoke calls method on agentID (peer p) with body through the targets
// its held card offers and returns the reply, as JSON (AsJSON).
func (c *Caller) Invoke(ctx context.Context, p peer.ID, agentID, method string, body []byte) (json.RawMessage, error) {
	var err error
	for _, t := range route.Order(c.cfg.Cards.Held(agentID), method) {
		var reply []byte
		if t.Transport == route.AITP {
			reply, err = c.Call(ctx, p, method, body, c.options(agentID, method)...)
		} else {
			reply, err = c.cfg.A2A.Send(ctx, a2aEndpoint(t), method, body)
			err = a2aError(agentID, err)
		}
		if !errors.Is(err, ErrUnreachable) || ctx.Err() != nil {
			if err != nil {
				return nil, err
			}
			return AsJSON(reply), nil
		}
		c.log.Debug("target not reachable", "agent", agentID, "method", method, "err", err)
	}
	return nil, err
}

// InvokeStream is Invoke accepting a streamed reply: each chunk goes to
// fn in order, as JSON (AsJSON). An error from fn ends the call.
func (c *Caller) InvokeStream(ctx context.Context, p peer.ID, agentID, method string, body []byte, fn func(chunk json.RawMessage) error) error {
	var err error
	emitted := false
	count := func(chunk json.RawMessage) error {
		emitted = true
		return fn(chunk)
	}
	for _, t := range route.Order(c.cfg.Cards.Held(agentID), method) {
		if t.Transport == route.AITP {
			err = c.stream(ctx, p, method, body, count, c.options(agentID, method)...)
		} else {
			err = a2aError(agentID, c.cfg.A2A.Stream(ctx, a2aEndpoint(t), method, body, count))
		}
		if emitted || !errors.Is(err, ErrUnreachable) || ctx.Err() != nil {
			return err
		}
		c.log.Debug("target not reachable", "agent", agentID, "method", method, "err", err)
	}
	return err
}

// Call is an AITP call to p (aitp.Client.Call) with the re-dials of the
// package documentation and transport failures wrapped as Unreachable
// does.
func (c *Caller) Call(ctx context.Context, p peer.ID, method string, body []byte, opts ...aitp.CallOption) ([]byte, error) {
	reply, err := c.cfg.Client.Call(ctx, p, method, body, opts...)
	for try := 0; try < maxRedials && c.redial(ctx, p, err); try++ {
		reply, err = c.cfg.Client.Call(ctx, p, method, body, opts...)
	}
	return reply, Unreachable(p, err)
}

// stream is Call for a streamed reply, each chunk to fn.
func (c *Caller) stream(ctx context.Context, p peer.ID, method string, body []byte, fn func(json.RawMessage) error, opts ...aitp.CallOption) error {
	rs, err := c.cfg.Client.Stream(ctx, p, method, body, opts...)
	for try := 0; try < maxRedials && c.redial(ctx, p, err); try++ {
		rs, err = c.cfg.Client.Stream(ctx, p, method, body, opts...)
	}
	if err != nil {
		return Unreachable(p, err)
	}
	defer rs.Close()
	for {
		chunk, err := rs.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(AsJSON(chunk)); err != nil {
			return err
		}
	}
}

// Tool returns the tool named method on agentID's held card, or nil.
func (c *Caller) Tool(agentID, method string) *adp.Tool {
	card := c.cfg.Cards.Held(agentID)
	if card == nil {
		return nil
	}
	for i := range card.Tools {
		if card.Tools[i].Name == method {
			return &card.Tools[i]
		}
	}
	return nil
}

// options marks a call idempotent (one retry after a lost stream) when
// the agent's held card says the tool is.
func (c *Caller) options(agentID, method string) []aitp.CallOption {
	if t := c.Tool(agentID, method); t != nil && t.Idempotent != nil && *t.Idempotent {
		return []aitp.CallOption{aitp.Idempotent()}
	}
	return nil
}

// redial reports whether the call to p that failed with err, never sent,
// may be tried again at once (see the package documentation). A failed
// dial that found no address is also retried when the peerstore holds
// some already: the dial began before they were added (a call joins a
// dial to the same peer that is under way, such as a background
// describe).
func (c *Caller) redial(ctx context.Context, p peer.ID, err error) bool {
	if err == nil || p == c.cfg.Host.ID() {
		return false
	}
	var de *swarm.DialError
	switch {
	case errors.Is(err, swarm.ErrNoAddresses):
		if len(c.cfg.Host.Peerstore().Addrs(p)) > 0 {
			return true
		}
		return c.cfg.LearnAddrs(p, adp.AgentID(p)) || c.findPeer(ctx, p)
	case errors.Is(err, swarm.ErrDialBackoff):
		c.findPeer(ctx, p)
		if sw, ok := c.cfg.Host.Network().(*swarm.Swarm); ok {
			sw.Backoff().Clear(p)
		}
		return true
	case errors.As(err, &de):
		return c.findPeer(ctx, p)
	}
	return false
}

// findPeer looks p up in the DHT (its signed peer record, as the peers
// closest to it know it), adds the addresses found to the peerstore and
// reports whether any was new.
func (c *Caller) findPeer(ctx context.Context, p peer.ID) bool {
	ctx, cancel := context.WithTimeout(ctx, findPeerTimeout)
	defer cancel()
	ai, err := c.cfg.Finder.FindPeer(ctx, p)
	if err != nil {
		c.log.Debug("find peer", "peer", p, "err", err)
		return false
	}
	known := c.cfg.Host.Peerstore().Addrs(p)
	fresh := false
	for _, a := range ai.Addrs {
		if !slices.ContainsFunc(known, a.Equal) {
			fresh = true
		}
	}
	if fresh {
		c.cfg.Host.Peerstore().AddAddrs(p, ai.Addrs, peerstore.RecentlyConnectedAddrTTL)
	}
	return fresh
}

// AsJSON returns b when it is JSON and b as a JSON string otherwise.
func AsJSON(b []byte) json.RawMessage {
	if len(b) > 0 && json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}

func a2aEndpoint(t route.Target) a2aclient.Endpoint {
	ep := a2aclient.Endpoint{URL: t.URL, ProtocolVersion: t.Version}
	if t.REST {
		ep.Binding = a2awire.BindingREST
	}
	return ep
}
