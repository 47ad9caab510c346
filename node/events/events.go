package events

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// Forward turns store changes and bus events (event.EvtPeerConnectednessChanged;
// others are skipped) into nodeapi events on out until ctx ends or either
// channel closes. It never blocks on out: when out is full, events are
// dropped and, as soon as there is room, one nodeapi.EventResync tells the
// reader to read the state afresh.
func Forward(ctx context.Context, changes <-chan store.Change, bus <-chan any, out chan<- nodeapi.Event) {
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
