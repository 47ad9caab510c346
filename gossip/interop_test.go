package gossip_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-msgio/pbio"
	mh "github.com/multiformats/go-multihash"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
)

// docMessageID is the GossipSub message-ID function of docs/protocol.md
// §8.2, written from the document: the publisher's public key in
// libp2p's protobuf encoding (the digest of the identity multihash that
// is the from field; the key field when the peer id is a hash) followed
// by the 8 octets of the message's seqno.
func docMessageID(m *pb.Message) string {
	key := m.GetKey()
	if d, err := mh.Decode(m.GetFrom()); len(key) == 0 && err == nil && d.Code == mh.IDENTITY {
		key = d.Digest
	}
	return string(key) + string(m.GetSeqno())
}

// TestForeignPeerInterop runs a GossipSub peer that is not built on this
// package (a bare go-libp2p-pubsub router configured from docs/protocol.md
// alone) beside a node: it receives the node's card, publishes its own,
// which the node accepts, and forwards the node's own message back to the
// node, as js-libp2p-gossipsub may. Its score at the node stays at or
// above zero.
func TestForeignPeerInterop(t *testing.T) {
	nw := newNet(t, 2, p2pnet.Unconnected)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	scores := &scoreWatch{}
	back := &selfOrigin{}
	node := startNodes(t, nw, 0, 1,
		gossip.PubSubOptions(pubsub.WithPeerScoreInspect(scores.inspect, 10*time.Millisecond), pubsub.WithRawTracer(back)))[0]
	foreign, _ := nw.Host(1)
	foreignKey, _ := nw.Key(1)

	psCtx, psCancel := context.WithCancel(context.Background())
	ps, err := pubsub.NewGossipSub(psCtx, foreign,
		pubsub.WithMessageSignaturePolicy(pubsub.StrictSign),
		pubsub.WithMessageIdFn(docMessageID))
	if err != nil {
		t.Fatal(err)
	}
	topic, err := ps.Join(gossip.Topic)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := topic.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sub.Cancel()
		psCancel()
	})
	if err := nw.Connect(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}

	// It receives the node's card.
	own := cardtest.Signed(t, node.sk, 1, "node")
	if err := node.g.SetOwnCard(own); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("foreign peer got no card: %v", err)
	}
	got, err := adp.DecodeVerified(msg.Data)
	if err != nil || got.ID != own.ID {
		t.Fatalf("foreign peer got %v (%v), want the node's card", got, err)
	}

	// The node accepts its card.
	card := cardtest.Signed(t, foreignKey, 1, "foreign")
	if err := topic.Publish(ctx, card.Raw()); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "node holds the foreign card", func() bool {
		return node.store.seq(adp.AgentID(foreign.ID())) == 1
	})

	// It forwards the node's own message back to it, on a stream of its own.
	polltest.Until(t, 10*time.Second, func() error {
		if err := forward(ctx, foreign, node.h.ID(), msg.Message); err != nil {
			return err
		}
		if !back.seen(foreign.ID()) {
			return errNotYet
		}
		return nil
	})
	n := scores.inspections()
	polltest.For(t, 5*time.Second, "scores inspected again", func() bool { return scores.inspections() >= n+2 })
	if s, ok := scores.score(foreign.ID()); !ok || s < 0 {
		t.Errorf("foreign peer's score at the node is %v (known %v), want >= 0", s, ok)
	}
	if s := node.g.Stats(); s.Rejected != 0 {
		t.Errorf("node stats %+v: an honest peer's message was rejected", s)
	}
}

// forward sends m to p in a GossipSub RPC on a new stream.
func forward(ctx context.Context, h host.Host, p peer.ID, m *pb.Message) error {
	s, err := h.NewStream(ctx, p, pubsub.GossipSubID_v12, pubsub.GossipSubID_v11)
	if err != nil {
		return err
	}
	return pbio.NewDelimitedWriter(s).WriteMsg(&pb.RPC{Publish: []*pb.Message{m}})
}

var errNotYet = errors.New("the node has not seen the forwarded message yet")

// selfOrigin is a pubsub.RawTracer that records the peers that forwarded
// to the node a message the node published.
type selfOrigin struct {
	mu    sync.Mutex
	peers map[peer.ID]bool
}

func (s *selfOrigin) seen(p peer.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers[p]
}

func (s *selfOrigin) RejectMessage(msg *pubsub.Message, reason string) {
	if reason != pubsub.RejectSelfOrigin {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers == nil {
		s.peers = make(map[peer.ID]bool)
	}
	s.peers[msg.ReceivedFrom] = true
}

func (*selfOrigin) OnNewOutboundStream(peer.ID, protocol.ID) {}
func (*selfOrigin) OnClosedOutboundStream(peer.ID)           {}
func (*selfOrigin) Join(string)                              {}
func (*selfOrigin) Leave(string)                             {}
func (*selfOrigin) Graft(peer.ID, string)                    {}
func (*selfOrigin) Prune(peer.ID, string)                    {}
func (*selfOrigin) ValidateMessage(*pubsub.Message)          {}
func (*selfOrigin) DeliverMessage(*pubsub.Message)           {}
func (*selfOrigin) DuplicateMessage(*pubsub.Message)         {}
func (*selfOrigin) ThrottlePeer(peer.ID)                     {}
func (*selfOrigin) RecvRPC(*pubsub.RPC)                      {}
func (*selfOrigin) SendRPC(*pubsub.RPC, peer.ID)             {}
func (*selfOrigin) DropRPC(*pubsub.RPC, peer.ID)             {}
func (*selfOrigin) UndeliverableMessage(*pubsub.Message)     {}
