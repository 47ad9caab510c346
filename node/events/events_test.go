package events_test

import (
	"context"
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/events"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// TestForwardResync: a reader that falls behind loses events but
// gets one resync before anything newer, and the forwarder never blocks.
func TestForwardResync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan store.Change)
	bus := make(chan any)
	out := make(chan nodeapi.Event, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		events.Forward(ctx, changes, bus, out)
	}()
	for _, id := range []string{"a", "b", "c"} { // out holds one: b and c are dropped
		changes <- store.Change{Kind: store.Upserted, AgentID: id}
	}
	want := []struct {
		kind  nodeapi.EventKind
		agent string
	}{{nodeapi.EventCardUpserted, "a"}, {nodeapi.EventResync, ""}, {nodeapi.EventCardRemoved, "d"}}
	for i, w := range want {
		if i == 2 {
			changes <- store.Change{Kind: store.Removed, AgentID: "d", Reason: "revoked"}
		}
		select {
		case ev := <-out:
			if ev.Kind != w.kind || ev.Agent != w.agent {
				t.Fatalf("event %d = %+v, want %s %q", i, ev, w.kind, w.agent)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d: nothing delivered, want %s", i, w.kind)
		}
	}
	cancel()
	<-done
}

// TestForwardPeers: connections and disconnections become peer events
// naming the peer's agent id; other connectedness changes and other bus
// events are skipped.
func TestForwardPeers(t *testing.T) {
	sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bus := make(chan any)
	out := make(chan nodeapi.Event, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		events.Forward(ctx, make(chan store.Change), bus, out)
	}()
	bus <- "not an event"
	bus <- event.EvtPeerConnectednessChanged{Peer: p, Connectedness: network.CannotConnect}
	bus <- event.EvtPeerConnectednessChanged{Peer: p, Connectedness: network.Connected}
	bus <- event.EvtPeerConnectednessChanged{Peer: p, Connectedness: network.Limited}
	bus <- event.EvtPeerConnectednessChanged{Peer: p, Connectedness: network.NotConnected}
	close(bus) // Forward returns; what it sent stays in out
	<-done
	cancel()
	close(out)
	var got []nodeapi.EventKind
	for ev := range out {
		if ev.Peer != p.String() || ev.Agent != adp.AgentID(p) {
			t.Errorf("event %+v names the wrong peer", ev)
		}
		got = append(got, ev.Kind)
	}
	want := []nodeapi.EventKind{nodeapi.EventPeerConnected, nodeapi.EventPeerConnected, nodeapi.EventPeerDisconnected}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
