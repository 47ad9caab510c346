package node_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/aitp"
)

// EnvMCPEverything names the executable of the MCP reference server
// @modelcontextprotocol/server-everything; by default the one that
// `npm ci --prefix scripts/mcp-everything` installs.
const EnvMCPEverything = "ADPNODE_MCP_EVERYTHING"

// everythingServer returns the reference server's executable. When it is
// missing the test fails under CI=true and is skipped, saying why and how
// to install it, otherwise.
func everythingServer(t *testing.T) string {
	t.Helper()
	path := os.Getenv(EnvMCPEverything)
	if path == "" {
		path, _ = filepath.Abs(filepath.Join("..", "scripts", "mcp-everything", "node_modules", ".bin", "mcp-server-everything"))
	}
	if _, err := os.Stat(path); err != nil {
		msg := "MCP reference server not installed (" + err.Error() + "): run `npm ci --prefix scripts/mcp-everything` or set " + EnvMCPEverything
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// TestMCPEverythingBehindNode: the official reference server, run by the
// node with --agent-mcp-command, called over the network.
func TestMCPEverythingBehindNode(t *testing.T) {
	bin := everythingServer(t)
	agent, caller := mcpPair(t, testNode{name: "everything", agentMCPCommand: "'" + bin + "' stdio"})
	ctx := context.Background()

	names := toolNames(agent.Card())
	for _, want := range []string{"echo", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Fatalf("card tools %v lack %s", names, want)
		}
	}
	res, err := caller.Invoke(ctx, agent.AgentID(), "echo", []byte(`{"message":"hello everything"}`))
	if err != nil || !strings.Contains(string(res.Body), "hello everything") {
		t.Fatalf("echo: %v %v", err, res)
	}
	_, err = caller.Invoke(ctx, agent.AgentID(), "echo", []byte(`{"message":5}`))
	if e := aitpError(err); e.Status != aitp.StatusInvalidRequest || !strings.Contains(e.Message, "message") {
		t.Fatalf("echo with a bad argument: %v", err)
	}
	var got []string
	err = caller.InvokeStream(ctx, agent.AgentID(), "trigger-long-running-operation", []byte(`{"duration":0.3,"steps":3}`), func(c json.RawMessage) error {
		got = append(got, string(c))
		return nil
	})
	if err != nil || len(got) < 2 || !strings.Contains(got[0], `"progress":1`) || !strings.Contains(got[len(got)-1], "completed") {
		t.Fatalf("long running operation: %v %q", err, got)
	}
}
