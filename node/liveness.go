package node

import (
	"context"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
)

// Liveness: what this node observes of an agent becomes its
// availability signal (node/liveness, scoring.Signals). The node records
//
//   - connections: a connection to the agent's peer opening or closing
//     (livenessLoop); while connected the agent is available;
//   - sightings: a greeting (adp.advertise from the owner) and every
//     gossip delivery of its card by its owner, a re-broadcast included
//     (keep, AdvertisedCard);
//   - calls: a success is a sighting and ends a run of failures, a
//     failure lengthens it (recordCall).
//
// The ranking's availability window is two re-broadcast intervals
// (GossipInterval): an agent that was killed stops being connected and
// re-broadcasting, and once two intervals pass unheard it is ranked
// unavailable, below the live ones; it stays listed while its card is
// held.

// heard records a sign of life of agentID and pushes its signals when the
// node holds its card.
func (n *Node) heard(agentID string) {
	if !n.store.Holds(agentID) {
		return
	}
	if n.live.Heard(agentID) {
		n.pushSignals(agentID)
	}
}

// subscribeConnectedness subscribes to connections opening and closing.
func (n *Node) subscribeConnectedness() (event.Subscription, error) {
	return n.host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged), eventbus.BufSize(256))
}

// livenessLoop records the connection changes of peers whose agent card
// the node holds, and pushes their signals, until ctx ends. It closes sub.
func (n *Node) livenessLoop(ctx context.Context, sub event.Subscription) {
	defer sub.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.Out():
			if !ok {
				return
			}
			e, isConn := ev.(event.EvtPeerConnectednessChanged)
			if !isConn || e.Peer == n.self {
				continue
			}
			id := adp.AgentID(e.Peer)
			if n.store.Held(id) == nil {
				continue
			}
			if n.live.Connected(id, e.Connectedness == network.Connected) {
				n.pushSignals(id)
			}
		}
	}
}

// connected reports a live connection to agentID's peer.
func (n *Node) connected(agentID string) bool {
	p, err := adp.PeerIDFromAgentID(agentID)
	return err == nil && n.host.Network().Connectedness(p) == network.Connected
}

// circuitOpen reports whether the invocation layer's circuit breaker for
// agentID's peer is open: its calls fail fast.
func (n *Node) circuitOpen(agentID string) bool {
	p, err := adp.PeerIDFromAgentID(agentID)
	return err == nil && n.client.BreakerState(p) == aitp.BreakerOpen
}
