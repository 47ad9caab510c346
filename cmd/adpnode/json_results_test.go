package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/testnet"
)

// lockedBuffer is a bytes.Buffer safe to read while a command writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInitAndRunJSON: init --json answers one JSON object; run --json
// prints one JSON line once the node is ready, naming the same agent,
// its peer, its API and its listen addresses.
func TestInitAndRunJSON(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCLI(t, "", "init", "--data-dir", dir, "--name", "Json", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var in initJSON
	if err := json.Unmarshal([]byte(out), &in); err != nil || !strings.HasPrefix(in.AgentID, "agent://k51") || !strings.HasPrefix(in.PeerID, "12D3KooW") || in.DataDir != dir {
		t.Fatalf("init --json: %q (%v)", out, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	root := newRootCmd()
	var stdout lockedBuffer
	root.SetOut(&stdout)
	root.SetErr(&bytes.Buffer{})
	root.SetIn(strings.NewReader(""))
	root.SetArgs([]string{"run", "--data-dir", dir, "--api", "127.0.0.1:0", "--listen", "/ip4/127.0.0.1/tcp/0", "--log-level", "error", "--json"})
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = root.ExecuteContext(ctx) })
	defer func() { cancel(); wg.Wait() }()

	var ready readyJSON
	polltest.Until(t, 20*time.Second, func() error {
		line, _, ok := strings.Cut(stdout.String(), "\n")
		if !ok {
			return errNoLine
		}
		return json.Unmarshal([]byte(line), &ready)
	})
	if !ready.Ready || ready.AgentID != in.AgentID || ready.PeerID != in.PeerID || !strings.HasPrefix(ready.APIURL, "http://127.0.0.1:") || len(ready.Listen) == 0 {
		t.Fatalf("run --json ready line: %+v", ready)
	}
	if !strings.HasSuffix(ready.Listen[0], "/p2p/"+ready.PeerID) {
		t.Fatalf("listen address %q is not a full multiaddr of the node", ready.Listen[0])
	}
	cancel()
	wg.Wait()
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 1 {
		t.Fatalf("run --json printed %d lines, want 1: %q", n, stdout.String())
	}
}

var errNoLine = errors.New("no ready line yet")

// TestTestnetUpJSON: the --json answer of testnet up lists every node
// with its role, agent, API and web view URLs.
func TestTestnetUpJSON(t *testing.T) {
	dir := t.TempDir()
	m := testnet.Manifest{Version: 1, CreatedAt: time.Now(), Binary: "adpnode", Nodes: []testnet.NodeInfo{
		{Index: 0, Name: "boot", AgentID: "agent://k51a", PeerID: "12D3KooWa", Skills: []string{"nlp/translation"}, Bootstrap: true, API: "http://127.0.0.1:7001", Addrs: []string{"/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWa"}},
		{Index: 1, Name: "dir", AgentID: "agent://k51b", Directory: true, API: "http://127.0.0.1:7002"},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, testnet.ManifestFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	tn, err := testnet.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := writeJSONLine(&out, tnUpJSONOf(tn)); err != nil {
		t.Fatal(err)
	}
	var got tnUpJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if got.Dir != tn.Dir() || len(got.Nodes) != 2 {
		t.Fatalf("testnet up --json: %+v", got)
	}
	n0, n1 := got.Nodes[0], got.Nodes[1]
	if n0.Role != "bootstrap" || n0.API != "http://127.0.0.1:7001" || n0.WebView != "http://127.0.0.1:7001/" || n0.AgentID != "agent://k51a" || len(n0.Addrs) != 1 {
		t.Fatalf("node 0: %+v", n0)
	}
	if n1.Role != "directory" || n1.WebView != "http://127.0.0.1:7002/" || n1.Skills == nil || n1.Addrs == nil {
		t.Fatalf("node 1: %+v", n1)
	}
}
