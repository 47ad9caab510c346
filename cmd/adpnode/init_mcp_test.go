package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// TestMain lets the test binary be the stdio MCP server of
// TestInitFromMCPCommand (mcptest.Command re-executes it).
func TestMain(m *testing.M) {
	mcptest.MaybeServeStdio()
	os.Exit(m.Run())
}

func TestInitFromMCPCommand(t *testing.T) {
	cmd, err := mcptest.Command()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, _, err := runCLI(t, "", "init", "--data-dir", dir, "--from-mcp-command", cmd)
	if err != nil || !strings.HasPrefix(out, "agent agent://") {
		t.Fatalf("init: %v %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "card.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := adp.DecodeVerified(raw)
	if err != nil {
		t.Fatalf("card does not verify: %v", err)
	}
	if c.Name != mcptest.Name || c.Version != mcptest.Version || c.Description != mcptest.Instructions {
		t.Fatalf("name %q version %q description %q", c.Name, c.Version, c.Description)
	}
	i := slices.IndexFunc(c.Tools, func(t adp.Tool) bool { return t.Name == "echo" })
	if len(c.Tools) != 4 || i < 0 || !strings.Contains(string(c.Tools[i].InputSchema), `"text"`) {
		t.Fatalf("tools %s", raw)
	}
	// --name still wins over the server's name.
	dir2 := t.TempDir()
	if _, _, err := runCLI(t, "", "init", "--data-dir", dir2, "--name", "My tools", "--from-mcp-command", cmd); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(dir2, "card.json"))
	if c, err := adp.DecodeVerified(raw); err != nil || c.Name != "My tools" || len(c.Tools) != 4 {
		t.Fatalf("init --name: %v %s", err, raw)
	}
	// A command that is no MCP server fails with its name in the error.
	if _, _, err := runCLI(t, "", "init", "--data-dir", t.TempDir(), "--from-mcp-command", "/nonexistent/server"); err == nil || !strings.Contains(err.Error(), "/nonexistent/server") {
		t.Fatalf("bad command: %v", err)
	}
}
