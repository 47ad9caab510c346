package node_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/poll"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/httpapi"
)

func TestInit(t *testing.T) {
	dir := t.TempDir()
	id, err := node.Init(dir, node.InitOptions{Name: "Translator", Description: "Translates text", Skills: []string{"nlp/translation"}, DemoTools: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "card.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := adp.DecodeVerified(raw)
	if err != nil {
		t.Fatalf("card.json does not verify: %v", err)
	}
	if c.ID != id || c.Name != "Translator" || c.Seq == nil || *c.Seq != 1 || len(c.Tools) != len(demoagent.Tools()) {
		t.Fatalf("card: id %s (want %s) name %q seq %v tools %d", c.ID, id, c.Name, c.Seq, len(c.Tools))
	}
	if _, err := node.Init(dir, node.InitOptions{Name: "again"}); !errors.Is(err, node.ErrAlreadyInitialized) {
		t.Fatalf("second Init: %v", err)
	}
	if _, err := node.Init(t.TempDir(), node.InitOptions{}); !errors.Is(err, node.ErrInvalidConfig) {
		t.Fatalf("Init without name: %v", err)
	}
	if _, err := node.Init(t.TempDir(), node.InitOptions{Name: "x", Skills: []string{"Bad Tag!"}}); err == nil {
		t.Fatal("Init accepted an invalid skill")
	}
	// A tool name that cannot be an AITP method is not served, and does not
	// stop the node.
	weird := t.TempDir()
	if _, err := node.Init(weird, node.InitOptions{Name: "weird", Tools: []adp.Tool{{Name: "two words"}}}); err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{DataDir: weird, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, SmallMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewNeedsInit(t *testing.T) {
	_, err := node.New(node.Config{DataDir: t.TempDir()})
	if !errors.Is(err, node.ErrNotInitialized) {
		t.Fatalf("New on empty dir: %v", err)
	}
}

// TestStartCloseNoLeak starts and closes nodes and checks that every
// goroutine they started is gone.
func TestStartCloseNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	dir := t.TempDir()
	if _, err := node.Init(dir, node.InitOptions{Name: "leak check", DemoTools: true}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // start, stop, restart on the same data dir
		n, err := node.New(node.Config{DataDir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"}, APIAddr: "127.0.0.1:0", DemoAgent: true, SmallMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := n.Start(context.Background()); !errors.Is(err, node.ErrStarted) {
			t.Fatalf("second Start: %v", err)
		}
		apiURL, err := os.ReadFile(httpapi.APIFile(dir))
		if err != nil || strings.TrimSpace(string(apiURL)) != n.APIURL() || !strings.HasPrefix(n.APIURL(), "http://127.0.0.1:") {
			t.Fatalf("api file %q (%v), APIURL %q", apiURL, err, n.APIURL())
		}
		if code, _ := api(t, n, "GET", "/healthz", ""); code != 200 {
			t.Fatalf("healthz: %d", code)
		}
		if err := n.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := os.Stat(httpapi.APIFile(dir)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("api file left after Close: %v", err)
		}
	}
	// Built and closed without Start: the peer-event subscription taken in
	// New is released too.
	n, err := node.New(node.Config{DataDir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, SmallMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("Close before Start: %v", err)
	}
	// Two connected nodes that exchanged cards and a call, then closed.
	a := startNode(t, testNode{name: "a", demo: true})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}})
	polltest.For(t, 20*time.Second, "cards exchanged", func() bool { return a.CardCount() == 2 && b.CardCount() == 2 })
	if _, err := b.Invoke(context.Background(), a.AgentID(), demoagent.Echo, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if code, _ := api(t, b, "POST", "/v1/discover?scope=network", `{"query":"reverse text"}`); code != 200 {
		t.Fatalf("network discover: %d", code)
	}
	if err := errors.Join(b.Close(), a.Close()); err != nil {
		t.Fatal(err)
	}

	err = poll.Until(context.Background(), 10*time.Second, func() error {
		if g := runtime.NumGoroutine(); g > before {
			return fmt.Errorf("goroutines: %d before, %d after Close", before, g)
		}
		return nil
	})
	if err != nil {
		buf := make([]byte, 1<<20)
		t.Fatalf("%v\n%s", err, buf[:runtime.Stack(buf, true)])
	}
}

// TestSyncBetweenEqualNodesMovesNoCard: once three nodes hold the same
// cards, a card sync between two of them brings back the syncing node's
// own card alone (the peer holds it), not the cards it already holds: its
// request names them. (A node may make a new version of its card when its
// addresses settle, so the check is of a sync in a quiet moment: without
// the request's list, every sync brings back the two other cards.)
func TestSyncBetweenEqualNodesMovesNoCard(t *testing.T) {
	a := startNode(t, testNode{name: "alpha", skills: []string{"nlp/translation"}})
	boot := []string{addrOf(t, a)}
	b := startNode(t, testNode{name: "beta", skills: []string{"vision/ocr"}, bootstrap: boot})
	c := startNode(t, testNode{name: "gamma", skills: []string{"audio/tts"}, bootstrap: boot})
	polltest.For(t, 20*time.Second, "every node holds the three cards", func() bool {
		return a.CardCount() == 3 && b.CardCount() == 3 && c.CardCount() == 3
	})
	polltest.Until(t, 10*time.Second, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		before := b.SyncStats()
		if err := b.SyncWith(ctx, a.PeerID()); err != nil {
			return err
		}
		after := b.SyncStats()
		if after.Skipped != before.Skipped || after.Newer != before.Newer || after.Behind != before.Behind {
			return fmt.Errorf("a sync between nodes holding the same cards: skipped %d, newer %d, behind %d, want none",
				after.Skipped-before.Skipped, after.Newer-before.Newer, after.Behind-before.Behind)
		}
		return nil
	})
	// The syncs and the routing table show on /metrics.
	code, body := api(t, b, "GET", "/metrics", "")
	for _, series := range []string{`adpnode_cardsync_syncs_total{result="ok"}`, `adpnode_dht_routing_table_peers`} {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\d+)$`).FindStringSubmatch(body)
		if code != 200 || m == nil || m[1] == "0" {
			t.Fatalf("metrics (%d): %s %v, want at least 1", code, series, m)
		}
	}
}
