package gossip

import (
	"context"
	"sync"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// meshTracer follows the router's mesh for Topic: the peers a publication
// is forwarded to. Publishing before the mesh has a member loses the
// message on sparse graphs, since a peer grafted later is never sent what
// it missed. It implements pubsub.RawTracer; the router calls it from its
// event loop.
type meshTracer struct {
	mu      sync.Mutex
	mesh    map[peer.ID]struct{}
	out     map[peer.ID]struct{} // peers the router has an outbound stream to
	grafted chan struct{}        // capacity 1: signalled on every graft
}

var _ pubsub.RawTracer = (*meshTracer)(nil)

func newMeshTracer() *meshTracer {
	return &meshTracer{mesh: make(map[peer.ID]struct{}), out: make(map[peer.ID]struct{}), grafted: make(chan struct{}, 1)}
}

// wait returns once the mesh has a member, or ctx's error.
func (m *meshTracer) wait(ctx context.Context) error {
	for m.size() == 0 {
		select {
		case <-m.grafted:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (m *meshTracer) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.mesh)
}

func (m *meshTracer) Graft(p peer.ID, topic string) {
	if topic != Topic {
		return
	}
	m.mu.Lock()
	m.mesh[p] = struct{}{}
	m.mu.Unlock()
	select {
	case m.grafted <- struct{}{}:
	default:
	}
}

func (m *meshTracer) Prune(p peer.ID, topic string) {
	if topic != Topic {
		return
	}
	m.mu.Lock()
	delete(m.mesh, p)
	m.mu.Unlock()
}

func (m *meshTracer) Leave(topic string) {
	if topic != Topic {
		return
	}
	m.mu.Lock()
	clear(m.mesh)
	m.mu.Unlock()
}

// hasOutbound reports whether the router has an outbound stream to p, the
// one it sends everything to p on.
func (m *meshTracer) hasOutbound(p peer.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.out[p]
	return ok
}

func (m *meshTracer) OnNewOutboundStream(p peer.ID, _ protocol.ID) {
	m.mu.Lock()
	m.out[p] = struct{}{}
	m.mu.Unlock()
}

// OnClosedOutboundStream marks a peer gone: the router drops it from every
// mesh without a Prune event.
func (m *meshTracer) OnClosedOutboundStream(p peer.ID) {
	m.mu.Lock()
	delete(m.mesh, p)
	delete(m.out, p)
	m.mu.Unlock()
}

func (*meshTracer) Join(string)                           {}
func (*meshTracer) ValidateMessage(*pubsub.Message)       {}
func (*meshTracer) DeliverMessage(*pubsub.Message)        {}
func (*meshTracer) RejectMessage(*pubsub.Message, string) {}
func (*meshTracer) DuplicateMessage(*pubsub.Message)      {}
func (*meshTracer) ThrottlePeer(peer.ID)                  {}
func (*meshTracer) RecvRPC(*pubsub.RPC)                   {}
func (*meshTracer) SendRPC(*pubsub.RPC, peer.ID)          {}
func (*meshTracer) DropRPC(*pubsub.RPC, peer.ID)          {}
func (*meshTracer) UndeliverableMessage(*pubsub.Message)  {}
