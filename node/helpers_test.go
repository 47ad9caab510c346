package node_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/gossip"
	"github.com/adpnode/adpnode/internal/apitest"
	"github.com/adpnode/adpnode/node"
)

// testNode describes a node to start.
type testNode struct {
	name, description string
	skills            []string
	tools             []adp.Tool
	demo              bool
	directory         bool
	agentURL          string
	agentMCPCommand   string // see node.Config.AgentMCPCommand
	agentMCPURL       string
	bootstrap         []string
	dataDir           string // reuse (restart); empty = fresh
	noAPI             bool
	publicHTTP        bool          // serve the public server on a free loopback port
	publicA2A         string        // see node.Config.PublicA2A
	publicProxies     []string      // see node.Config.PublicTrustedProxies
	cardTTL           time.Duration // freshness of cards without metadata.ttl
	gossipInterval    time.Duration // re-broadcast interval of the own card; 0 = default
	clock             func() time.Time
	listen            []string        // default loopback TCP on a free port
	a2aAllowPrivate   bool            // see node.Config.A2AAllowPrivate
	didWbaDomain      string          // see node.Config.DIDWbaDomain
	maxCards          int             // node.Config.MaxCards
	chargeLoopback    bool            // node.Config.ChargeLoopback
	gossipOpts        []gossip.Option // appended to the node's (Config.GossipOptions)
}

// startNode initialises (when needed), builds and starts a node on
// loopback TCP with its API on a free port; Cleanup closes it.
func startNode(t testing.TB, tn testNode) *node.Node {
	t.Helper()
	dir := tn.dataDir
	if dir == "" {
		dir = t.TempDir()
		name := tn.name
		if name == "" {
			name = "test agent"
		}
		if _, err := node.Init(dir, node.InitOptions{Name: name, Description: tn.description, Skills: tn.skills, Tools: tn.tools, DemoTools: tn.demo}); err != nil {
			t.Fatalf("Init: %v", err)
		}
	}
	cfg := node.Config{
		DataDir:         dir,
		Listen:          []string{"/ip4/127.0.0.1/tcp/0"},
		APIAddr:         "127.0.0.1:0",
		Bootstrap:       tn.bootstrap,
		Directory:       tn.directory,
		DemoAgent:       tn.demo,
		AgentURL:        tn.agentURL,
		SmallMemory:     true,
		CardTTL:         tn.cardTTL,
		GossipInterval:  tn.gossipInterval,
		Logger:          testLogger(t),
		Clock:           tn.clock,
		A2AAllowPrivate: tn.a2aAllowPrivate,
		DIDWbaDomain:    tn.didWbaDomain,
		MaxCards:        tn.maxCards,
		ChargeLoopback:  tn.chargeLoopback,
	}
	cfg.GossipOptions = append(cfg.GossipOptions, tn.gossipOpts...)
	if tn.noAPI {
		cfg.APIAddr = ""
	}
	if tn.publicHTTP {
		cfg.PublicHTTP = "127.0.0.1:0"
		cfg.PublicA2A = tn.publicA2A
		cfg.PublicTrustedProxies = tn.publicProxies
	}
	cfg.AgentMCPCommand, cfg.AgentMCPURL = tn.agentMCPCommand, tn.agentMCPURL
	if tn.listen != nil {
		cfg.Listen = tn.listen
	}
	n, err := node.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.Start(ctx); err != nil {
		n.Close()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

func testLogger(t testing.TB) *slog.Logger {
	if os.Getenv("ADPNODE_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// api sends a request to n's HTTP API and returns status and body.
func api(t testing.TB, n *node.Node, method, path, body string) (int, string) {
	t.Helper()
	return apitest.Do(t, n.APIURL(), method, path, body)
}

// addrOf returns n's first full multiaddr, for bootstrapping others.
func addrOf(t testing.TB, n *node.Node) string {
	t.Helper()
	addrs := n.Addrs()
	if len(addrs) == 0 {
		t.Fatal("node has no addresses")
	}
	return addrs[0].String()
}

// nodeWithPackage returns the path of the node executable once the npm
// package pkg (its path under node_modules, such as "@a2a-js/sdk") is
// installed in dir. Without either the test is skipped, saying how to
// install them, except under CI=true, where it fails.
func nodeWithPackage(t *testing.T, dir, pkg string) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	}
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (%v): install Node.js and run `npm ci --prefix %s` at the top of the repository", pkg, err, strings.TrimPrefix(filepath.ToSlash(dir), "../"))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}
