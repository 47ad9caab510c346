package node_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
)

// forgetPeer makes b hold a's card but neither a connection to a nor
// any address of it; a forgets b's addresses too, so that it does not
// dial back.
//
// The nodes do not stay apart on their own: b's peering loop redials its
// bootstrap peer a, and a's redials its known peer b while it has fewer
// than peering.DefaultMinPeers connections, each on its next tick (every
// peering.DefaultInterval), from addresses of their own that clearing the
// peerstore does not remove. A wait for "disconnected" after one close
// races with that redial and, when it loses, sees the new connection
// until it times out. So the whole step (clear, close, check) is repeated
// until the check holds; a redial after it only gives the call under test
// its connection back, which the callers' assertions allow.
func forgetPeer(t *testing.T, a, b *node.Node) {
	t.Helper()
	polltest.For(t, 20*time.Second, "b holds a's card with its addresses", func() bool {
		rec, err := b.LookupCard(context.Background(), a.AgentID())
		return err == nil && *rec.Card.Seq == *a.Card().Seq
	})
	sw, ok := b.Host().Network().(*swarm.Swarm)
	if !ok {
		t.Fatalf("network %T is not a swarm", b.Host().Network())
	}
	polltest.Until(t, 10*time.Second, func() error {
		a.Host().Peerstore().ClearAddrs(b.PeerID())
		b.Host().Peerstore().ClearAddrs(a.PeerID())
		if err := b.Host().Network().ClosePeer(a.PeerID()); err != nil {
			return fmt.Errorf("close a: %w", err)
		}
		if c := b.Host().Network().Connectedness(a.PeerID()); c == network.Connected {
			return fmt.Errorf("b still connected to a after closing (redialled): %v", c)
		}
		b.Host().Peerstore().ClearAddrs(a.PeerID())
		// A redial racing the close may have failed and put a's
		// addresses in the dial backoff; forget that too.
		sw.Backoff().Clear(a.PeerID())
		return nil
	})
}

// TestInvokeAddsCardAddressesBesideDeadOnes: the peerstore holds only a
// dead address of the agent (one that vanished); the call still reaches
// it through the addresses on its card.
func TestInvokeAddsCardAddressesBesideDeadOnes(t *testing.T) {
	a := startNode(t, testNode{name: "a", demo: true})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}})
	forgetPeer(t, a, b)
	dead := ma.StringCast("/ip4/127.0.0.1/tcp/1")
	b.Host().Peerstore().AddAddrs(a.PeerID(), []ma.Multiaddr{dead}, peerstore.PermanentAddrTTL)
	if _, err := b.Invoke(context.Background(), a.AgentID(), demoagent.Echo, []byte(`{"x":1}`)); err != nil {
		t.Fatalf("invoke with only a dead address in the peerstore: %v", err)
	}
	if got := b.Host().Peerstore().Addrs(a.PeerID()); len(got) < 2 {
		t.Fatalf("peerstore addresses of a: %v, want the card's beside the dead one", got)
	}
}

// TestCallRelearnsAddressesOnce: a dial that finds no address (they
// expired between learning and dialing) re-learns them from the held
// card and succeeds on its one retry.
func TestCallRelearnsAddressesOnce(t *testing.T) {
	a := startNode(t, testNode{name: "a", demo: true})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}})
	forgetPeer(t, a, b)
	reply, err := b.CallPeer(context.Background(), a.PeerID(), demoagent.Echo, []byte(`{"x":1}`))
	if err != nil {
		t.Fatalf("call without addresses: %v", err)
	}
	if string(reply) != `{"x":1}` {
		t.Fatalf("reply %s, want the echo", reply)
	}
}
