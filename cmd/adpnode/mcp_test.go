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
	runInBackground(t, dirB, "--bootstrap", nodeAddr(t, ctx, dirA))
	return dirB, idA
}

// nodeAddr returns the first listen address of the node running on dir.
func nodeAddr(t *testing.T, ctx context.Context, dir string) string {
	t.Helper()
	out, _, err := nodeCLI(t, ctx, "status", "--data-dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Addrs []string `json:"addrs"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Addrs) == 0 {
		t.Fatalf("status: %q %v", out, err)
	}
	return st.Addrs[0]
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
	nodeBin := tsInteropNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dirB, idA := startMCPPair(t, ctx)
	out := runTSClient(t, ctx, nodeBin, "client.mjs", dirB, "text/analysis", idA)
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

// tsInteropNode returns the node executable once node and the TypeScript
// SDK of mcpInteropDir are installed. Without them it skips, except under
// CI=true, where it fails.
func tsInteropNode(t *testing.T) string {
	t.Helper()
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
	return nodeBin
}

// runTSClient runs the TypeScript client script of mcpInteropDir against
// `adpnode mcp --data-dir dir` (this test binary running main) and
// returns its JSON summary; a non-zero exit fails the test.
func runTSClient(t *testing.T, ctx context.Context, nodeBin, script, dir string, scriptArgs ...string) []byte {
	t.Helper()
	args, _ := json.Marshal([]string{"mcp", "--data-dir", dir})
	server, _ := json.Marshal(map[string]any{
		"command": os.Args[0], "args": []string{"-test.run=^TestCLIProcess$"},
		"env": map[string]string{cliChildEnv: string(args)},
	})
	cmd := exec.CommandContext(ctx, nodeBin, append([]string{script, string(server)}, scriptArgs...)...)
	cmd.Dir = mcpInteropDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	t.Logf("TypeScript client %s: %s", script, out)
	return out
}

// envMCPEverything names the executable of the MCP reference server
// @modelcontextprotocol/server-everything, as in the node package's test;
// by default the one `npm ci --prefix scripts/mcp-everything` installs.
const envMCPEverything = "ADPNODE_MCP_EVERYTHING"

// everythingServer returns the reference server's executable. When it is
// missing the test fails under CI=true and is skipped otherwise.
func everythingServer(t *testing.T) string {
	t.Helper()
	path := os.Getenv(envMCPEverything)
	if path == "" {
		path, _ = filepath.Abs(filepath.Join("..", "..", "scripts", "mcp-everything", "node_modules", ".bin", "mcp-server-everything"))
	}
	if _, err := os.Stat(path); err != nil {
		msg := "MCP reference server not installed (" + err.Error() + "): run `npm ci --prefix scripts/mcp-everything` or set " + envMCPEverything
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// TestMCPBothWays: MCP on both sides of the network. Node B runs the
// reference server (server-everything) with --agent-mcp-command; the
// TypeScript SDK client, through `adpnode mcp` in front of a plain node A
// bootstrapped to B, discovers B's agent, calls its echo tool and its
// long-running operation with a progress token.
func TestMCPBothWays(t *testing.T) {
	nodeBin := tsInteropNode(t)
	bin := everythingServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dirA, dirB := t.TempDir(), t.TempDir()
	const tag = "mcp/reference"
	out, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirB, "--name", "Everything", "--description", "The MCP reference server", "--skills", tag)
	if err != nil {
		t.Fatal(err)
	}
	idB := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "agent ")
	if _, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "Caller"); err != nil {
		t.Fatal(err)
	}
	runInBackground(t, dirB, "--agent-mcp-command", "'"+bin+"' stdio")
	runInBackground(t, dirA, "--bootstrap", nodeAddr(t, ctx, dirB))
	polltest.Until(t, 20*time.Second, func() error {
		out, _, err := nodeCLI(t, ctx, "status", "--data-dir", dirA, "--json")
		var st struct {
			Cards int `json:"cards"`
		}
		if err == nil {
			err = json.Unmarshal([]byte(out), &st)
		}
		if err == nil && st.Cards != 2 {
			err = fmt.Errorf("node A holds %d cards, want its own and B's", st.Cards)
		}
		return err
	})

	const message = `héllo "everything" ✓ \ 42`
	out = string(runTSClient(t, ctx, nodeBin, "everything.mjs", dirA, tag, idB, message))
	var sum struct {
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
		Discovered struct {
			AgentID string   `json:"agent_id"`
			Tools   []string `json:"tools"`
		} `json:"discovered"`
		Echo        string `json:"echo"`
		LongRunning struct {
			Chunks       int    `json:"chunks"`
			Result       string `json:"result"`
			Progress     int    `json:"progress"`
			WireProgress []struct {
				Token    any     `json:"token"`
				Progress float64 `json:"progress"`
				Message  string  `json:"message"`
			} `json:"wire_progress"`
		} `json:"long_running"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if sum.Server.Name != mcpserver.ServerName || sum.Discovered.AgentID != idB ||
		!slices.Contains(sum.Discovered.Tools, "echo") || !slices.Contains(sum.Discovered.Tools, "trigger-long-running-operation") {
		t.Fatalf("server or discovery wrong: %+v", sum)
	}
	if sum.Echo != "Echo: "+message {
		t.Fatalf("echo %q, want %q", sum.Echo, "Echo: "+message)
	}
	lr := sum.LongRunning
	// Every chunk (the server's progress steps, then its result) is one
	// notification with the SDK's token, numbered in order.
	if len(lr.WireProgress) < 2 || len(lr.WireProgress) != lr.Chunks || lr.Progress > len(lr.WireProgress) {
		t.Fatalf("long running operation: %d chunks, progress on the wire %+v, %d to the callback", lr.Chunks, lr.WireProgress, lr.Progress)
	}
	for i, p := range lr.WireProgress {
		if p.Token == nil || p.Progress != float64(i+1) {
			t.Fatalf("progress %d: %+v, want the SDK's token and %d", i, p, i+1)
		}
	}
	if !strings.Contains(lr.WireProgress[0].Message, `"progress":1`) || !strings.Contains(lr.Result, "completed") {
		t.Fatalf("long running operation: first progress %q, result %q", lr.WireProgress[0].Message, lr.Result)
	}
}
