package node

import (
	"context"
	"sync"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/node/events"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// peerEventBuffer is the buffer of the event bus subscription behind one
// Events subscriber.
const peerEventBuffer = 64

// Events subscribes to the node's changes: the store's change feed (cards
// arrived, changed, refreshed, removed) and the host's connectedness
// events (peers connected and disconnected). It returns a channel holding
// at most buf pending events and a cancel func that ends the subscription,
// waits for its goroutine and closes the channel; cancel is idempotent and
// Close ends every subscription too.
//
// The node never waits for a subscriber: when the channel is full, events
// are dropped and, as soon as there is room again, one EventResync tells
// the subscriber to read the state afresh. It fails with ErrClosed once
// Close has begun.
func (n *Node) Events(buf int) (<-chan nodeapi.Event, func(), error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, nil, ErrClosed
	}
	sub, err := n.host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged), eventbus.BufSize(peerEventBuffer))
	if err != nil {
		return nil, nil, err
	}
	changes, cancelFeed := n.store.Subscribe(0)
	out := make(chan nodeapi.Event, max(buf, 1))
	ctx, cancel := context.WithCancel(n.ctx)
	done := make(chan struct{})
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer close(done)
		defer close(out)
		defer sub.Close()
		defer cancelFeed()
		events.Forward(ctx, changes, sub.Out(), out)
	}()
	var once sync.Once
	return out, func() {
		once.Do(cancel)
		<-done
	}, nil
}
