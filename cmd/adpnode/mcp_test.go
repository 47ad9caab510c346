package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/mcpserver"
)

// TestMCPCommand runs `adpnode mcp --data-dir` as a host would (this test
// binary running main, on stdio) in front of two running nodes, and finds
// and calls an agent through it.
func TestMCPCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dirB, idA := startMCPPair(t, ctx)
	args, _ := json.Marshal([]string{"mcp", "--data-dir", dirB})
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIProcess$")
	cmd.Env = append(os.Environ(), cliChildEnv+"="+string(args))
	client := mcp.NewClient(&mcp.Implementation{Name: "adpnode-cli-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to adpnode mcp: %v", err)
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init.ServerInfo.Name != mcpserver.ServerName || init.Instructions == "" {
		t.Fatalf("initialize: %+v", init)
	}

	polltest.Until(t, 20*time.Second, func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolDiscover, Arguments: map[string]any{"tags": []string{"text/analysis"}}})
		if err != nil {
			return err
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var d mcpserver.DiscoverOutput
		if res.IsError || json.Unmarshal(raw, &d) != nil || !slices.ContainsFunc(d.Candidates, func(c mcpserver.Candidate) bool { return c.AgentID == idA }) {
			return fmt.Errorf("discover_agents has not found %s: %s", idA, raw)
		}
		return nil
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolInvoke, Arguments: map[string]any{"agent": idA, "tool": "wordcount", "arguments": map[string]any{"text": "one two three"}}})
	if err != nil || res.IsError {
		t.Fatalf("invoke_agent: %+v %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"words":3`) {
		t.Fatalf("invoke_agent: %s", raw)
	}
}

// startMCPPair starts node A (demo tools, skill text/analysis) and node B
// bootstrapped from it, and returns B's data directory and A's agent id.
func startMCPPair(t *testing.T, ctx context.Context) (dirB, idA string) {
	t.Helper()
	dirA, dirB := t.TempDir(), t.TempDir()
	out, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "Counter", "--description", "Counts words in texts", "--skills", "text/analysis", "--demo-tools")
	if err != nil {
		t.Fatal(err)
	}
	idA = strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "agent ")
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirB, "--name", "Caller"); err != nil {
		t.Fatal(err)
	}
	runInBackground(t, dirA, "--demo-agent")
	out, _, err = nodeCLI(t, ctx, "status", "--data-dir", dirA, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Addrs []string `json:"addrs"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Addrs) == 0 {
		t.Fatalf("status: %q %v", out, err)
	}
	runInBackground(t, dirB, "--bootstrap", st.Addrs[0])
	return dirB, idA
}

// mcpInteropDir holds the TypeScript SDK client and its pinned packages,
// installed by scripts/mcp-interop/run.sh (.ci/run runs it).
const mcpInteropDir = "../../scripts/mcp-interop"

// TestMCPTypeScriptClient drives `adpnode mcp` with the official MCP
// TypeScript SDK's client (@modelcontextprotocol/sdk): it lists the
// tools, discovers agent A through node B and calls A's streaming demo
// tool with a progress token. Without node or the installed packages it
// skips, except under CI=true, where it fails.
func TestMCPTypeScriptClient(t *testing.T) {
	nodeBin, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(mcpInteropDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MCP TypeScript interop needs node and the packages of %s (bash scripts/mcp-interop/run.sh): %v", mcpInteropDir, err)
		}
		t.Skipf("node or the MCP TypeScript SDK is missing (run bash scripts/mcp-interop/run.sh): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dirB, idA := startMCPPair(t, ctx)
	args, _ := json.Marshal([]string{"mcp", "--data-dir", dirB})
	server, _ := json.Marshal(map[string]any{
		"command": os.Args[0], "args": []string{"-test.run=^TestCLIProcess$"},
		"env": map[string]string{cliChildEnv: string(args)},
	})
	cmd := exec.CommandContext(ctx, nodeBin, "client.mjs", string(server), "text/analysis", idA)
	cmd.Dir = mcpInteropDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	t.Logf("TypeScript client: %s", out)
	var sum struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Tools      []string `json:"tools"`
		Discovered struct {
			AgentID string   `json:"agent_id"`
			Tools   []string `json:"tools"`
		} `json:"discovered"`
		Chunks []struct {
			Text string `json:"text"`
		} `json:"chunks"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		} `json:"progress"`
		WireProgress []struct {
			Token    any     `json:"token"`
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		} `json:"wire_progress"`
		BadArgument struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"bad_argument"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if sum.Server.Name != mcpserver.ServerName || len(sum.Tools) != 7 || sum.Discovered.AgentID != idA || !slices.Contains(sum.Discovered.Tools, "reverse") {
		t.Fatalf("server, tools or discovery wrong: %+v", sum)
	}
	if len(sum.Chunks) != 2 || sum.Chunks[0].Text != "stnega" || sum.Chunks[1].Text != "dnif" {
		t.Fatalf("chunks %+v, want stnega then dnif", sum.Chunks)
	}
	// One notification per chunk reaches the client before the result,
	// with the token the SDK sent. The SDK hands each to the onprogress
	// callback a microtask late and drops those read together with the
	// result, so the callback may see fewer; those it sees are in order.
	if len(sum.WireProgress) != len(sum.Chunks) || len(sum.Progress) > len(sum.WireProgress) {
		t.Fatalf("progress on the wire %+v, to the callback %+v, want one per chunk", sum.WireProgress, sum.Progress)
	}
	for i, p := range sum.WireProgress {
		if p.Token == nil || p.Progress != float64(i+1) || !strings.Contains(p.Message, sum.Chunks[i].Text) {
			t.Fatalf("progress %d: %+v, want the SDK's token, %d and chunk %q", i, p, i+1, sum.Chunks[i].Text)
		}
	}
	for i, p := range sum.Progress {
		if p.Progress != float64(i+1) || !strings.Contains(p.Message, sum.Chunks[i].Text) {
			t.Fatalf("progress callback %d: %+v, want %d and chunk %q", i, p, i+1, sum.Chunks[i].Text)
		}
	}
	if !sum.BadArgument.IsError || !strings.Contains(sum.BadArgument.Text, "tool") {
		t.Fatalf("bad argument: %+v, want a tool error naming the tool argument", sum.BadArgument)
	}
}
