package node_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/peering"
)

// freeTCPPort returns a loopback TCP port the system picked, released.
func freeTCPPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// holds returns nil when n holds a card of agentID, else an error.
func holds(n *node.Node, agentID string) error {
	for _, r := range mustCards(n) {
		if r == agentID {
			return nil
		}
	}
	return fmt.Errorf("%s does not hold %s", n.AgentID(), agentID)
}

func mustCards(n *node.Node) []string {
	recs, err := n.Cards(context.Background())
	if err != nil {
		return nil
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.Card.ID)
	}
	return ids
}

// TestLateBootstrapReached: a node whose bootstrap peer is down when it
// starts keeps trying, and reaches it once it is up: each then holds the
// other's card.
func TestLateBootstrapReached(t *testing.T) {
	dirA := t.TempDir()
	idA, err := node.Init(dirA, node.InitOptions{Name: "late bootstrap"})
	if err != nil {
		t.Fatal(err)
	}
	pA, err := adp.PeerIDFromAgentID(idA)
	if err != nil {
		t.Fatal(err)
	}
	port := freeTCPPort(t)
	b := startNode(t, testNode{name: "b", noAPI: true, bootstrap: []string{"/ip4/127.0.0.1/tcp/" + port + "/p2p/" + pA.String()}})
	if p := b.Peers(); len(p) != 0 {
		t.Fatalf("b has peers %v before its bootstrap peer is up", p)
	}
	a := startNode(t, testNode{dataDir: dirA, noAPI: true, listen: []string{"/ip4/127.0.0.1/tcp/" + port}})
	polltest.Until(t, 30*time.Second, func() error {
		if err := holds(b, a.AgentID()); err != nil {
			return err
		}
		return holds(a, b.AgentID())
	})
}

// TestRestartSamePortReached: a node restarted on its data directory
// listens on the ports of its first run (TCP and QUIC), and a peer that
// called it while it was down reaches it again at once: the first call
// after the restart succeeds, without waiting for libp2p's dial backoff.
func TestRestartSamePortReached(t *testing.T) {
	quic := []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"}
	dirB := t.TempDir()
	b := startNode(t, testNode{name: "b", demo: true, noAPI: true, dataDir: initDir(t, dirB, "b"), listen: quic})
	a := startNode(t, testNode{name: "a", noAPI: true, bootstrap: []string{addrOf(t, b)}})
	polltest.Until(t, 30*time.Second, func() error { return holds(a, b.AgentID()) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.Invoke(ctx, b.AgentID(), demoagent.Echo, []byte(`{"text":"hi"}`)); err != nil {
		t.Fatalf("invoke before restart: %v", err)
	}
	before := addrStrings(b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// While b is down, a call fails and leaves libp2p's dial backoff.
	dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
	if _, err := a.Invoke(dctx, b.AgentID(), demoagent.Echo, []byte(`{"text":"hi"}`)); err == nil {
		t.Fatal("invoke of a stopped node succeeded")
	}
	dcancel()
	// b forgets its peers, so only a's side can bring the connection back.
	if err := os.Remove(filepath.Join(dirB, peering.KnownFile)); err != nil {
		t.Fatal(err)
	}
	b2 := startNode(t, testNode{dataDir: dirB, demo: true, noAPI: true, listen: quic})
	if after := addrStrings(b2); !slices.Equal(after, before) {
		t.Fatalf("restarted on %v, want the ports of the first run %v", after, before)
	}
	start := time.Now()
	if _, err := a.Invoke(ctx, b2.AgentID(), demoagent.Echo, []byte(`{"text":"again"}`)); err != nil {
		t.Fatalf("first invoke after restart: %v", err)
	}
	t.Logf("first invoke after the restart took %v", time.Since(start))
}

func initDir(t *testing.T, dir, name string) string {
	t.Helper()
	if _, err := node.Init(dir, node.InitOptions{Name: name, DemoTools: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func addrStrings(n *node.Node) []string {
	var out []string
	for _, a := range n.Addrs() {
		out = append(out, a.String())
	}
	slices.Sort(out)
	return out
}
