package testnet_test

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/adpnode/adpnode/gossip"
)

// wanHost is a mocknet host as a node's host behaves on a WAN, in the two
// ways mocknet leaves out:
//
//   - a connection manager: mocknet builds its hosts with none, so GossipSub
//     could not protect its mesh peers nor kad-dht tag its routing table's,
//     and nothing would trim the connections the DHT opens;
//   - the cost of a new connection: mocknet connects at once, where a dial
//     over TCP with Noise costs about two round trips (the TCP handshake,
//     then the Noise XX handshake, whose last message carries the first
//     stream's data) before the first stream can carry anything. A dial
//     from Connect or NewStream to a peer not yet connected waits dial
//     round trips of the link first;
//   - streams that pipeline: when lat is set, every stream the host opens
//     or accepts for a handler is a wanStream with the link's latency,
//     and the mocknet link has none of its own.
//
// Everything else is the mocknet host's. It is safe for concurrent use.
type wanHost struct {
	host.Host
	cm connmgr.ConnManager
	// dial returns the time a new connection to p takes to set up.
	dial func(p peer.ID) time.Duration
	// lat, if set, returns the one-way latency of the link to p.
	lat func(p peer.ID) time.Duration
}

func (h *wanHost) ConnManager() connmgr.ConnManager { return h.cm }

func (h *wanHost) Connect(ctx context.Context, pi peer.AddrInfo) error {
	if err := h.handshake(ctx, pi.ID); err != nil {
		return err
	}
	return h.Host.Connect(ctx, pi)
}

func (h *wanHost) NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error) {
	if nodial, _ := network.GetNoDial(ctx); !nodial {
		if err := h.handshake(ctx, p); err != nil {
			return nil, err
		}
	}
	s, err := h.Host.NewStream(ctx, p, pids...)
	if err != nil {
		return nil, err
	}
	return h.wrap(s), nil
}

func (h *wanHost) SetStreamHandler(pid protocol.ID, handler network.StreamHandler) {
	h.Host.SetStreamHandler(pid, h.wrapHandler(handler))
}

func (h *wanHost) SetStreamHandlerMatch(pid protocol.ID, m func(protocol.ID) bool, handler network.StreamHandler) {
	h.Host.SetStreamHandlerMatch(pid, m, h.wrapHandler(handler))
}

func (h *wanHost) wrap(s network.Stream) network.Stream {
	if h.lat == nil {
		return s
	}
	return newWANStream(s, h.lat(s.Conn().RemotePeer()))
}

func (h *wanHost) wrapHandler(handler network.StreamHandler) network.StreamHandler {
	if h.lat == nil {
		return handler
	}
	return func(s network.Stream) { handler(h.wrap(s)) }
}

// handshake waits the set-up time of a connection to p, unless one is
// open. Two concurrent dials to one peer both wait, then share the
// connection mocknet opens for the first.
func (h *wanHost) handshake(ctx context.Context, p peer.ID) error {
	if p == h.ID() || h.Network().Connectedness(p) == network.Connected {
		return nil
	}
	t := time.NewTimer(h.dial(p))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// meshTrace follows one node's GossipSub mesh on the cards topic: the
// peers it forwards a card to. It implements pubsub.RawTracer; the router
// calls it from its event loop.
type meshTrace struct {
	mu      sync.Mutex
	mesh    map[peer.ID]struct{}
	changes int // grafts and removals so far
}

var _ pubsub.RawTracer = (*meshTrace)(nil)

func newMeshTrace() *meshTrace { return &meshTrace{mesh: map[peer.ID]struct{}{}} }

// peers returns the mesh.
func (m *meshTrace) peers() []peer.ID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Collect(maps.Keys(m.mesh))
}

func (m *meshTrace) Graft(p peer.ID, topic string) {
	if topic == gossip.Topic {
		m.mu.Lock()
		m.mesh[p] = struct{}{}
		m.changes++
		m.mu.Unlock()
	}
}

func (m *meshTrace) Prune(p peer.ID, topic string) {
	if topic == gossip.Topic {
		m.OnClosedOutboundStream(p)
	}
}

// OnClosedOutboundStream marks a peer gone: the router drops it from
// every mesh without a Prune event.
func (m *meshTrace) OnClosedOutboundStream(p peer.ID) {
	m.mu.Lock()
	delete(m.mesh, p)
	m.changes++
	m.mu.Unlock()
}

// changed returns how many times the mesh has changed.
func (m *meshTrace) changed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changes
}

func (*meshTrace) OnNewOutboundStream(peer.ID, protocol.ID) {}
func (*meshTrace) Join(string)                              {}
func (*meshTrace) Leave(string)                             {}
func (*meshTrace) ValidateMessage(*pubsub.Message)          {}
func (*meshTrace) DeliverMessage(*pubsub.Message)           {}
func (*meshTrace) RejectMessage(*pubsub.Message, string)    {}
func (*meshTrace) DuplicateMessage(*pubsub.Message)         {}
func (*meshTrace) ThrottlePeer(peer.ID)                     {}
func (*meshTrace) RecvRPC(*pubsub.RPC)                      {}
func (*meshTrace) SendRPC(*pubsub.RPC, peer.ID)             {}
func (*meshTrace) DropRPC(*pubsub.RPC, peer.ID)             {}
func (*meshTrace) UndeliverableMessage(*pubsub.Message)     {}
