package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
)

// runConvertCLI runs `card convert` in process with the given standard input.
func runConvertCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := newCardConvertCmd()
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	var out, errOut bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func bridgeTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "adp", "bridge", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCardConvert(t *testing.T) {
	// A2A from standard input to ADP: an unsigned card that signs and verifies.
	out, stderr, err := runConvertCLI(t, bridgeTestdata(t, "a2a.json"), "--from", "a2a", "--to", "adp")
	if err != nil || stderr != "" {
		t.Fatalf("a2a -> adp: %v %q", err, stderr)
	}
	c, err := adp.ParseCard([]byte(out))
	if err != nil {
		t.Fatalf("output is not a card: %v\n%s", err, out)
	}
	if c.Name != "GeoSpatial Route Planner Agent" || len(c.Tools) != 2 || c.Signature != "" {
		t.Fatalf("a2a -> adp gave %+v", c)
	}
	if err := c.Sign(convertTestKey(t)); err != nil {
		t.Fatal(err)
	}
	card := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(card, c.Raw(), 0o600); err != nil {
		t.Fatal(err)
	}

	// The signed card from a file to the AgentCard draft and back: the
	// content survives, the signature does not.
	ac, _, err := runConvertCLI(t, "", "--from", "adp", "--to", "agentcard", card)
	if err != nil {
		t.Fatalf("adp -> agentcard: %v", err)
	}
	if !strings.Contains(ac, `"agent_id"`) || !strings.Contains(ac, "\n  ") {
		t.Fatalf("agentcard output is not an indented AgentCard:\n%s", ac)
	}
	back, _, err := runConvertCLI(t, ac, "--from", "agentcard", "--to", "adp", "-")
	if err != nil {
		t.Fatalf("agentcard -> adp: %v", err)
	}
	c2, err := adp.ParseCard([]byte(back))
	if err != nil {
		t.Fatal(err)
	}
	if c2.ID != c.ID || c2.Signature != "" {
		t.Fatalf("round trip: id %q (want %q), signature %q", c2.ID, c.ID, c2.Signature)
	}
	if err := c2.Sign(convertTestKey(t)); err != nil || c2.Signature != c.Signature {
		t.Fatalf("re-signed round-tripped card differs from the original: %v", err)
	}

	// --json prints the document on one line.
	line, _, err := runConvertCLI(t, bridgeTestdata(t, "mcp.json"), "--from", "mcp", "--to", "mcp", "--json")
	if err != nil || strings.Count(line, "\n") != 1 || !json.Valid([]byte(line)) {
		t.Fatalf("--json: %v %q", err, line)
	}
}

func TestCardConvertErrors(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"missing flags", "{}", []string{"--from", "a2a"}, "--from and --to are required"},
		{"unknown format", "{}", []string{"--from", "yaml", "--to", "adp"}, "--from: bridge: unknown format"},
		{"no such file", "", []string{"--from", "a2a", "--to", "adp", "/nonexistent/doc.json"}, "file does not exist"},
		{"invalid document", `{"name": 1, "skills": [{"tags": []}]}`, []string{"--from", "a2a", "--to", "adp"}, "/skills/0/id: is required"},
		{"AgentCard rule", strings.Replace(bridgeTestdata(t, "agentcard.json"), `"1.2.0"`, `"1.2"`, 1), []string{"--from", "agentcard", "--to", "a2a"}, "/version: must be a Semantic Versioning"},
		{"not JSON", "name: x", []string{"--from", "profile", "--to", "adp"}, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runConvertCLI(t, tt.stdin, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if out != "" {
				t.Fatalf("failure wrote to standard output: %q", out)
			}
		})
	}

	// --json reports the problems with their paths on standard output.
	out, _, err := runConvertCLI(t, `{"name": 1}`, "--from", "a2a", "--to", "adp", "--json")
	if !errors.Is(err, errReported) {
		t.Fatalf("--json failure: %v", err)
	}
	var res convertError
	if jerr := json.Unmarshal([]byte(out), &res); jerr != nil || len(res.Problems) != 1 || res.Problems[0].Path != "/name" {
		t.Fatalf("--json failure output %q (%v)", out, jerr)
	}
}

// convertTestKey is a fixed Ed25519 key, so that signatures can be compared.
func convertTestKey(t *testing.T) crypto.PrivKey {
	t.Helper()
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// TestCardConvertRegistered: the command is reachable as `adpnode card convert`.
func TestCardConvertRegistered(t *testing.T) {
	out, _, err := runCLI(t, bridgeTestdata(t, "profile-13.1.json"), "card", "convert", "--from", "profile", "--to", "profile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"Minimal Agent"`) {
		t.Fatalf("adpnode card convert printed %q", out)
	}
}
