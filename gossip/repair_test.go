package gossip_test

import (
	"context"
	"slices"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/protocol/identify"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestRepairLostOutboundStream builds the state go-libp2p-pubsub can leave
// two nodes in (see repair.go): A's router tried its outbound stream to B
// before B ran pubsub, failed, and never heard that B started. B's stream
// to A works, A has none to B, so neither holds the other as a topic peer
// (a router lists only the peers it has a stream to, and B never hears
// A's subscription). A's repair runs on a clock the test holds still, so
// the state is checked before any repair can act; once the clock passes
// the grace, A announces B to its router again, each then holds the other
// as a topic peer, and a card A publishes reaches B.
func TestRepairLostOutboundStream(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Unconnected)
	ha, hb := nw.Hosts()[0], nw.Hosts()[1]
	// A misses B's announcement of its pubsub protocols, as a router
	// does whose attempt is still failing when it comes.
	ha.RemoveStreamHandler(identify.IDPush)
	// B refuses A's first attempt, and tells the test when A has proposed
	// the last of its protocols.
	const probe = protocol.ID("/test/probe")
	last := pubsub.GossipSubDefaultProtocols[len(pubsub.GossipSubDefaultProtocols)-1]
	attempted := make(chan struct{}, 1)
	hb.SetStreamHandlerMatch(probe, func(id protocol.ID) bool {
		if id == last {
			select {
			case attempted <- struct{}{}:
			default:
			}
		}
		return false
	}, func(s network.Stream) { s.Reset() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := nw.Connect(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	// Identified both ways before A's router starts: an identification
	// completed later would name B's pubsub protocols, and A's router
	// would open its stream then.
	polltest.For(t, 10*time.Second, "identify both ways", func() bool {
		pa, _ := ha.Peerstore().GetProtocols(hb.ID())
		pb, _ := hb.Peerstore().GetProtocols(ha.ID())
		return slices.Contains(pa, identify.ID) && slices.Contains(pb, identify.ID)
	})

	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	reg := prometheus.NewRegistry()
	a := startNodes(t, nw, 0, 1, gossip.Clock(clock.Now), gossip.WithRepairEvery(10*time.Millisecond), gossip.Registerer(reg))[0]
	select {
	case <-attempted:
	case <-ctx.Done():
		t.Fatal("A's router made no attempt to B")
	}
	hb.RemoveStreamHandler(probe)
	b := startNodes(t, nw, 1, 2)[0]
	polltest.For(t, 10*time.Second, "B's stream to A", func() bool {
		_, ok := gossip.InboundPubsub(ha, hb.ID())
		return ok
	})
	if pa, pb := a.g.Peers(), b.g.Peers(); len(pa)+len(pb) != 0 {
		t.Fatalf("topic peers A %v, B %v before any repair; the test did not build the lost stream", pa, pb)
	}

	// Past the grace, one round at a time: the round that first sees B
	// starts its grace, a later one announces it.
	polltest.For(t, 10*time.Second, "A's repair", func() bool {
		if a.g.Stats().Repaired > 0 {
			return true
		}
		clock.Advance(gossip.RepairGrace)
		return false
	})
	polltest.For(t, 10*time.Second, "A and B topic peers of each other", func() bool {
		return slices.Contains(b.g.Peers(), ha.ID()) && slices.Contains(a.g.Peers(), hb.ID())
	})
	if r := a.g.Stats().Repaired; r != 1 {
		t.Errorf("A's Repaired = %d, want 1", r)
	}
	if v := counterValue(t, reg, "adp_gossip_outbound_repairs_total"); v != 1 {
		t.Errorf("adp_gossip_outbound_repairs_total = %v, want 1", v)
	}
	card := cardtest.Signed(t, a.sk, 1, "a", "nlp/translation")
	if err := a.g.Publish(ctx, card); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "A's card at B", func() bool { return b.store.seq(a.agent()) == 1 })
}

// counterValue returns the value of the counter name in reg (-1: absent).
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return -1
}
