package node

import (
	"context"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
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
		forwardEvents(ctx, changes, sub.Out(), out)
	}()
	var once sync.Once
	return out, func() {
		once.Do(cancel)
		<-done
	}, nil
}

// forwardEvents turns store changes and bus events into nodeapi events on
// out until ctx ends or the store feed closes; it never blocks on out.
func forwardEvents(ctx context.Context, changes <-chan store.Change, bus <-chan any, out chan<- nodeapi.Event) {
	lagged := false
	send := func(ev nodeapi.Event) {
		if lagged {
			return // dropped; the resync covers it
		}
		select {
		case out <- ev:
		default:
			lagged = true
		}
	}
	for {
		var resync chan<- nodeapi.Event
		if lagged {
			resync = out
		}
		select {
		case <-ctx.Done():
			return
		case resync <- nodeapi.Event{Kind: nodeapi.EventResync, At: time.Now().UTC()}:
			lagged = false
		case ch, ok := <-changes:
			if !ok {
				return
			}
			send(cardEvent(ch))
		case e, ok := <-bus:
			if !ok {
				return
			}
			if ev, ok := peerEvent(e); ok {
				send(ev)
			}
		}
	}
}

// cardEvent is the event of one store change.
func cardEvent(ch store.Change) nodeapi.Event {
	ev := nodeapi.Event{Agent: ch.AgentID, At: time.Now().UTC()}
	switch ch.Kind {
	case store.Upserted:
		ev.Kind = nodeapi.EventCardUpserted
	case store.Refreshed:
		ev.Kind = nodeapi.EventCardRefreshed
	default:
		ev.Kind, ev.Reason = nodeapi.EventCardRemoved, ch.Reason
	}
	if ch.Record != nil && ch.Record.Card != nil && ev.Kind != nodeapi.EventCardRemoved {
		ev.Name = ch.Record.Card.Name
	}
	return ev
}

// peerEvent is the event of one connectedness change; ok is false for a
// change that is neither a connection nor a disconnection.
func peerEvent(e any) (nodeapi.Event, bool) {
	c, ok := e.(event.EvtPeerConnectednessChanged)
	if !ok {
		return nodeapi.Event{}, false
	}
	ev := nodeapi.Event{Peer: c.Peer.String(), Agent: adp.AgentID(c.Peer), At: time.Now().UTC()}
	switch c.Connectedness {
	case network.Connected, network.Limited:
		ev.Kind = nodeapi.EventPeerConnected
	case network.NotConnected:
		ev.Kind = nodeapi.EventPeerDisconnected
	default:
		return nodeapi.Event{}, false
	}
	return ev, true
}
