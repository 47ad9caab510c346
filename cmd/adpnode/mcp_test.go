package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	dirA, dirB := t.TempDir(), t.TempDir()
	out, _, err := nodeCLI(t, ctx, "init", "--data-dir", dirA, "--name", "Counter", "--description", "Counts words in texts", "--skills", "text/analysis", "--demo-tools")
	if err != nil {
		t.Fatal(err)
	}
	idA := strings.TrimPrefix(strings.SplitN(out, "\n", 2)[0], "agent ")
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
