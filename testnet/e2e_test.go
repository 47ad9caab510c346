//go:build unix

package testnet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/testnet"
)

// buildBinary builds cmd/adpnode into a temporary directory, once per test.
func buildBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("need the go command to build adpnode: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "adpnode")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goBin, append(args, "github.com/adpnode/adpnode/cmd/adpnode")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cli runs the real binary and returns its standard output.
func cli(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("adpnode %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestEndToEnd runs five adpnode processes from the real binary: up,
// publish, discover by tag and by text across nodes, describe, invoke,
// restart one node with its store intact, down with nothing left running.
func TestEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "tn")
	const n = 5

	// Never leave processes behind, whatever fails below.
	t.Cleanup(func() {
		if tn, err := testnet.Open(dir); err == nil && tn.Running() {
			t.Log("cleanup: stopping leftover nodes")
			_ = tn.Down(context.Background(), true)
		}
	})

	// 1. up: the same command a user runs. It returns only once every node
	// holds every node's card, published over gossip and the DHT.
	out := cli(t, bin, "testnet", "up", "-n", fmt.Sprint(n), "--directories", "1", "--dir", dir, "--timeout", "30s")
	t.Logf("testnet up:\n%s", out)
	if !strings.Contains(out, "full propagation") {
		t.Fatalf("up printed no propagation time")
	}
	// A second up in the same directory is refused and leaves the running
	// testnet alone.
	again := exec.Command(bin, "testnet", "up", "-n", "2", "--dir", dir, "-q")
	if out, err := again.CombinedOutput(); err == nil || !strings.Contains(string(out), "already running") {
		t.Errorf("second up: err %v, output %s; want a refusal", err, out)
	}
	tn, err := testnet.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	nodes := tn.Nodes()
	if len(nodes) != n {
		t.Fatalf("%d nodes in the manifest, want %d", len(nodes), n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, st := range tn.Status(ctx) {
		if !st.Up || st.Status == nil {
			t.Fatalf("node %d not up: %v", st.Index, st.Err)
		}
		if st.Status.Cards < n {
			t.Errorf("node %d holds %d cards, want %d", st.Index, st.Status.Cards, n)
		}
		if st.Status.AgentID != st.AgentID {
			t.Errorf("node %d answers as %s, want %s", st.Index, st.Status.AgentID, st.AgentID)
		}
	}
	if !nodes[1].Directory || !nodes[0].Bootstrap {
		t.Errorf("roles: node 0 bootstrap %v, node 1 directory %v", nodes[0].Bootstrap, nodes[1].Directory)
	}

	// 2. discover by tag, each node asking for a skill of another node.
	for i := range n {
		target := nodes[(i+2)%n]
		resp, err := tn.Discover(ctx, i, &adp.DiscoverRequest{Tags: []string{target.Skills[0]}, Limit: 10}, "network")
		if err != nil {
			t.Fatalf("discover on node %d: %v", i, err)
		}
		if !hasResult(resp, target.AgentID) {
			t.Errorf("node %d: tags=%s did not find node %d (%s): %s", i, target.Skills[0], target.Index, target.Name, resultNames(resp))
		}
	}
	// ... and a parent category through the CLI (the table view and JSON).
	var viaCLI adp.DiscoverResponse
	raw := cli(t, bin, "testnet", "discover", "--dir", dir, "--node", "3", "--tags", "vision", "--json")
	if err := json.Unmarshal([]byte(raw), &viaCLI); err != nil {
		t.Fatalf("discover --json: %v\n%s", err, raw)
	}
	if !hasResult(&viaCLI, nodes[1].AgentID) {
		t.Errorf("CLI discover tags=vision on node 3 did not find %s: %s", nodes[1].Name, resultNames(&viaCLI))
	}
	if table := cli(t, bin, "testnet", "discover", "--dir", dir, "--node", "2", "--tags", "vision/ocr"); !strings.Contains(table, nodes[1].Name) {
		t.Errorf("CLI discover table lacks %s:\n%s", nodes[1].Name, table)
	}

	// 3. discover by text: node 4 describes a speech task in words.
	speech := nodes[2] // Transcribe Now: audio/speech-to-text
	resp, err := tn.Discover(ctx, 4, &adp.DiscoverRequest{Query: "transcribe a recorded podcast with speaker names", Limit: 3}, "network")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].ID != speech.AgentID {
		t.Errorf("text query: want %s first, got %s", speech.Name, resultNames(resp))
	}

	// 4. describe node 3's agent from node 0.
	var card struct {
		ID, Name string
		Tools    []struct{ Name string }
	}
	if err := tn.API(ctx, 0, http.MethodPost, "/v1/describe", map[string]any{"agent": nodes[3].AgentID}, &card); err != nil {
		t.Fatalf("describe: %v", err)
	}
	if card.ID != nodes[3].AgentID || card.Name != nodes[3].Name || len(card.Tools) == 0 {
		t.Errorf("describe returned %+v, want %s (%s) with tools", card, nodes[3].AgentID, nodes[3].Name)
	}

	// 5. invoke the demo tools across nodes.
	var echo struct {
		Body json.RawMessage `json:"body"`
	}
	payload := map[string]any{"greeting": "hello from node 1", "n": 42}
	if err := tn.API(ctx, 1, http.MethodPost, "/v1/invoke", map[string]any{"agent": nodes[4].AgentID, "method": "echo", "body": payload}, &echo); err != nil {
		t.Fatalf("invoke echo: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(echo.Body, &got); err != nil || got["greeting"] != "hello from node 1" || got["n"] != float64(42) {
		t.Errorf("echo returned %s", echo.Body)
	}
	var wc struct {
		Body struct{ Words, Lines int } `json:"body"`
	}
	if err := tn.API(ctx, 3, http.MethodPost, "/v1/invoke", map[string]any{"agent": nodes[0].AgentID, "method": "wordcount", "body": map[string]string{"text": "one two three\nfour"}}, &wc); err != nil {
		t.Fatalf("invoke wordcount: %v", err)
	}
	if wc.Body.Words != 4 || wc.Body.Lines != 2 {
		t.Errorf("wordcount = %+v, want 4 words, 2 lines", wc.Body)
	}

	// 6. restart node 2: its store keeps the cards it had received.
	out = cli(t, bin, "testnet", "restart", "--dir", dir, "--node", "2")
	t.Logf("restart: %s", out)
	tn.Close()
	tn, err = testnet.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if pid := tn.Nodes()[2].PID; pid == nodes[2].PID {
		t.Errorf("node 2 still has pid %d after restart", pid)
	}
	// Every card is back, and the restarted process stored none of the
	// others' cards from the network (a card received again only renews
	// the held copy): they came from its store.
	var listing struct {
		Cards []struct {
			ID     string `json:"id"`
			Source string `json:"source"`
		} `json:"cards"`
	}
	if err := tn.API(ctx, 2, http.MethodGet, "/v1/cards", nil, &listing); err != nil {
		t.Fatal(err)
	}
	if len(listing.Cards) != n {
		t.Errorf("after restart node 2 holds %d cards, want %d: %+v", len(listing.Cards), n, listing.Cards)
	}
	if got := storedFromNetwork(t, tn, 2); got != 0 {
		t.Errorf("after restart node 2 stored %d cards from the network, want 0 (all %d from its store)", got, n-1)
	}
	// The restarted node takes part again: a peer reaches it and it
	// reaches a peer.
	if err := testnet.WaitFor(func() bool {
		var e struct{ Body map[string]any }
		return tn.API(ctx, 0, http.MethodPost, "/v1/invoke", map[string]any{"agent": nodes[2].AgentID, "method": "echo", "body": map[string]int{"x": 1}}, &e) == nil && e.Body["x"] == float64(1)
	}, 30*time.Second); err != nil {
		t.Errorf("node 0 cannot invoke restarted node 2: %v", err)
	}

	// 6b. publish a change: node 4 adds a skill (PUT /v1/card signs it
	// with the next seq and publishes it); every node, the restarted one
	// included, then finds node 4 by that skill in its own store. (After
	// the restart check: a card received again refreshes its receipt time.)
	var own json.RawMessage
	if err := tn.API(ctx, 4, http.MethodGet, "/v1/card", nil, &own); err != nil {
		t.Fatalf("get card: %v", err)
	}
	changed, err := adp.ParseCard(own)
	if err != nil {
		t.Fatal(err)
	}
	const newSkill = "testing/e2e-published"
	changed.Skills = append(changed.Skills, newSkill)
	changed.Signature = ""
	var signed json.RawMessage
	if err := tn.API(ctx, 4, http.MethodPut, "/v1/card", changed, &signed); err != nil {
		t.Fatalf("put card: %v", err)
	}
	if c, err := adp.DecodeVerified(signed); err != nil || !slices.Contains(c.Skills, newSkill) || adp.Compare(c, changed) <= 0 {
		t.Fatalf("put card answered %s (%v)", signed, err)
	}
	for i := range n {
		if err := testnet.WaitFor(func() bool {
			resp, err := tn.Discover(ctx, i, &adp.DiscoverRequest{Tags: []string{newSkill}}, "local")
			return err == nil && hasResult(resp, nodes[4].AgentID)
		}, 20*time.Second); err != nil {
			t.Errorf("node %d never found node 4 by its new skill %s: %v", i, newSkill, err)
		}
	}

	// 7. down: every process gone, the directory removed.
	status := cli(t, bin, "testnet", "status", "--dir", dir)
	up := 0
	for _, line := range strings.Split(status, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "up" {
			up++
		}
	}
	if up != n {
		t.Errorf("status before down shows %d nodes up, want %d:\n%s", up, n, status)
	}
	// Nodes built with -race report data races in their logs as they
	// happen; read them before down removes the directory.
	pids := tn.Nodes()
	for _, nd := range pids {
		if b, err := os.ReadFile(nd.Log); err == nil && bytes.Contains(b, []byte("WARNING: DATA RACE")) {
			t.Errorf("node %d reported a data race:\n%s", nd.Index, b)
		}
	}
	cli(t, bin, "testnet", "down", "--dir", dir)
	for _, nd := range pids {
		if running(nd.PID) {
			t.Errorf("node %d (pid %d) still running after down", nd.Index, nd.PID)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("testnet directory left behind: %v", err)
	}
}

// running reports whether pid is a live process. The nodes' parent (the
// `testnet up` command) has exited, so a stopped node may linger as a
// zombie until init reaps it; a zombie runs nothing and holds no memory.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

func hasResult(resp *adp.DiscoverResponse, id string) bool {
	return slices.ContainsFunc(resp.Results, func(r adp.DiscoverResult) bool { return r.ID == id })
}

func resultNames(resp *adp.DiscoverResponse) string {
	var b strings.Builder
	for _, r := range resp.Results {
		fmt.Fprintf(&b, "[%s %.3f %v] ", r.Name, r.Score, r.MatchedTags)
	}
	if b.Len() == 0 {
		return "no results"
	}
	return b.String()
}

// storedFromNetwork reads node i's /metrics and returns how many cards
// other than its own its store took as new or newer since it started.
func storedFromNetwork(t *testing.T, tn *testnet.Testnet, i int) int {
	t.Helper()
	base, err := tn.APIURL(i)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	total, found := 0, false
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "adpnode_store_card_puts_total{") {
			continue
		}
		found = true
		if !strings.Contains(line, `outcome="stored"`) || strings.Contains(line, `source="self"`) {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		total += int(v)
	}
	if !found {
		t.Fatalf("node %d exports no adpnode_store_card_puts_total:\n%s", i, body)
	}
	return total
}
