package node

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// newInternalNode initialises and builds (not starts) a node on loopback
// TCP without an API; Cleanup closes it.
func newInternalNode(t *testing.T, name string) *Node {
	t.Helper()
	dir := t.TempDir()
	if _, err := Init(dir, InitOptions{Name: name}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	n, err := New(Config{
		DataDir:     dir,
		Listen:      []string{"/ip4/127.0.0.1/tcp/0"},
		SmallMemory: true,
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

// TestGreetsPeerIdentifiedBeforeStart: a peer connected and identified
// between New and Start (as the DHT's bootstrap dial does) still gets the
// node's card.
func TestGreetsPeerIdentifiedBeforeStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a := newInternalNode(t, "greeted")
	if err := a.Start(ctx); err != nil {
		t.Fatalf("Start a: %v", err)
	}
	b := newInternalNode(t, "greeter")
	if err := b.host.Connect(ctx, a.host.Peerstore().PeerInfo(a.self)); err != nil {
		t.Fatalf("connect: %v", err)
	}
	polltest.For(t, 10*time.Second, "a identified as an AITP peer", func() bool {
		protos, err := b.host.Peerstore().SupportsProtocols(a.self, aitp.ProtocolID)
		return err == nil && len(protos) > 0
	})
	if err := b.Start(ctx); err != nil {
		t.Fatalf("Start b: %v", err)
	}
	polltest.For(t, 10*time.Second, "b to greet a peer identified before its Start", func() bool {
		return b.greeter.Greeted(a.self)
	})
	// The greeting is an adp.advertise: a holds b's card.
	polltest.For(t, 10*time.Second, "a to hold b's card", func() bool {
		_, err := a.store.Card(ctx, b.agentID)
		return err == nil
	})
}
