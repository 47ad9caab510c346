package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

func newKeyFile(t *testing.T) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "k.key")
	out, _, err := runCLI(t, "", "key", "new", "--out", path)
	if err != nil {
		t.Fatal(err)
	}
	return path, strings.TrimSpace(out)
}

const cliCard = `{
  "name": "echo",
  "description": "Echoes text",
  "skills": ["text/echo"],
  "tools": [{"name": "echo", "x-extra": {"kept": true}}],
  "endpoints": [{"protocol": "aitp", "uri": "agent://self"}],
  "metadata": {"created_at": "2026-01-01T00:00:00Z", "ttl": 60},
  "extensions": {"example.ns": {"a": 1}},
  "x-unknown": [1, 2, 3]
}`

func TestCardSignVerifyValidate(t *testing.T) {
	keyPath, id := newKeyFile(t)
	before := time.Now().UTC().Truncate(time.Second)
	signed, _, err := runCLI(t, cliCard, "card", "sign", "--key", keyPath)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now().UTC()
	c, err := adp.DecodeVerified([]byte(strings.TrimSpace(signed)))
	if err != nil {
		t.Fatalf("signed card does not verify: %v\n%s", err, signed)
	}
	if c.ID != id || c.Seq == nil || *c.Seq != 1 {
		t.Fatalf("id %s seq %v, want %s and 1", c.ID, c.Seq, id)
	}
	upd, err := time.Parse(time.RFC3339, c.Metadata.UpdatedAt)
	if err != nil || upd.Before(before) || upd.After(after) {
		t.Fatalf("updated_at %s not in [%s, %s]", c.Metadata.UpdatedAt, before, after)
	}
	if c.Metadata.CreatedAt != "2026-01-01T00:00:00Z" || string(c.Extra["x-unknown"]) != "[1,2,3]" || c.Tools[0].Extra["x-extra"] == nil {
		t.Fatalf("fields lost: %s", signed)
	}

	// Signing again from a file increments seq.
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _, err := runCLI(t, "", "card", "sign", "--key", keyPath, file)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := adp.DecodeVerified([]byte(strings.TrimSpace(again)))
	if err != nil || *c2.Seq != 2 {
		t.Fatalf("re-sign: seq %v, %v", c2.Seq, err)
	}

	out, _, err := runCLI(t, "", "card", "verify", file)
	if err != nil || !strings.Contains(out, "signature valid") || !strings.Contains(out, id) {
		t.Fatalf("verify: %q %v", out, err)
	}
	out, _, err = runCLI(t, signed, "card", "verify", "--json")
	var res verifyResult
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || !res.Valid || res.AgentID != id || *res.Seq != 1 {
		t.Fatalf("verify --json: %q %v", out, err)
	}
	out, _, err = runCLI(t, signed, "card", "validate")
	if err != nil || strings.TrimSpace(out) != "valid" {
		t.Fatalf("validate: %q %v", out, err)
	}

	// Tampering is caught with the reason.
	tampered := strings.Replace(signed, `"echo"`, `"ECHO"`, 1)
	_, _, err = runCLI(t, tampered, "card", "verify")
	if err == nil || !strings.Contains(err.Error(), "bad signature") {
		t.Fatalf("tampered card: %v", err)
	}
	out, _, err = runCLI(t, tampered, "card", "verify", "--json")
	if err == nil || json.Unmarshal([]byte(out), &res) != nil || res.Valid || !strings.Contains(res.Error, "bad signature") {
		t.Fatalf("tampered --json: %q %v", out, err)
	}
	_, _, err = runCLI(t, cliCard, "card", "verify")
	if err == nil || !strings.Contains(err.Error(), "not signed") {
		t.Fatalf("unsigned card: %v", err)
	}
}

func TestCardValidateListsProblems(t *testing.T) {
	bad := `{"id": "agent://nobody", "tools": [{"name": ""}, {"name": "a"}, {"name": "a"}], "endpoints": [{"protocol": "aitp"}], "status": "gone"}`
	_, _, err := runCLI(t, bad, "card", "validate")
	if err == nil {
		t.Fatal("invalid card passed")
	}
	for _, want := range []string{"6 problem(s)", "/id:", "/name: is required", "/tools/0/name", "/tools/2/name: duplicates /tools/1/name", "/endpoints/0/uri", "/status"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	out, _, err := runCLI(t, bad, "card", "validate", "--json")
	var res verifyResult
	if err == nil || json.Unmarshal([]byte(out), &res) != nil || res.Valid || len(res.Problems) != 6 {
		t.Fatalf("--json: %q %v", out, err)
	}
	// Type errors come from the parser, also with paths.
	_, _, err = runCLI(t, `{"id": 5, "name": "n"}`, "card", "validate")
	if err == nil || !strings.Contains(err.Error(), "/id: must be a string") {
		t.Fatalf("type error: %v", err)
	}
	_, _, err = runCLI(t, `{"id":`, "card", "validate")
	if err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("syntax error: %v", err)
	}
	_, _, err = runCLI(t, strings.Repeat(" ", adp.MaxCardSize+1), "card", "validate")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized: %v", err)
	}
}

// TestCardSignSetsID: sign replaces whatever id a card holds (a
// template's placeholder, another key's, this key's in the other peer ID
// form) with the key's, and says so when it named another agent.
func TestCardSignSetsID(t *testing.T) {
	keyPath, id := newKeyFile(t)
	_, otherID := newKeyFile(t)
	p, err := adp.PeerIDFromAgentID(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, note string
	}{
		{"agent://placeholder", "agent://placeholder replaced"},
		{otherID, otherID + " replaced"},
		{`not a uri \u001b[31m`, `not a uri \x1b[31m replaced`},
		{"agent://" + p.String(), ""},
		{id, ""},
	} {
		in := strings.Replace(cliCard, `"name": "echo",`, `"id": "`+tc.id+`", "name": "echo",`, 1)
		out, errOut, err := runCLI(t, in, "card", "sign", "--key", keyPath)
		if err != nil {
			t.Fatalf("id %q: %v", tc.id, err)
		}
		c, err := adp.DecodeVerified([]byte(strings.TrimSpace(out)))
		if err != nil || c.ID != id {
			t.Fatalf("id %q: signed card %v, id %s, want %s", tc.id, err, c.ID, id)
		}
		if tc.note == "" && errOut != "" || !strings.Contains(errOut, tc.note) || strings.ContainsRune(errOut, 0x1b) {
			t.Errorf("id %q: stderr %q, want a note with %q", tc.id, errOut, tc.note)
		}
	}
}

func TestCardSignErrors(t *testing.T) {
	keyPath, _ := newKeyFile(t)
	if _, _, err := runCLI(t, cliCard, "card", "sign"); err == nil {
		t.Fatal("sign without --key succeeded")
	}
	if _, _, err := runCLI(t, `{"description": "no name"}`, "card", "sign", "--key", keyPath); err == nil || !strings.Contains(err.Error(), "/name") {
		t.Fatalf("invalid card signed: %v", err)
	}
	maxSeq := strings.Replace(cliCard, `"name": "echo",`, `"name": "echo", "seq": 9007199254740991,`, 1)
	if _, _, err := runCLI(t, maxSeq, "card", "sign", "--key", keyPath); err == nil || !strings.Contains(err.Error(), "seq") {
		t.Fatalf("seq overflow: %v", err)
	}
}

// cliChildEnv makes TestCLIProcess run main with the JSON-encoded
// arguments it holds, as the adpnode binary would.
const cliChildEnv = "ADPNODE_TEST_CLI_ARGS"

// runCLIProcess runs main in a subprocess with args and stdin and returns its
// standard output, standard error and exit code.
func runCLIProcess(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	enc, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIProcess$")
	cmd.Env = append(os.Environ(), cliChildEnv+"="+string(enc))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestCLIProcess checks the contract of the offline commands as a shell
// sees it: results on standard output and exit 0; failures on standard
// error prefixed "adpnode:" with exit 1, and nothing on standard output
// unless --json asked for a machine-readable verdict.
func TestCLIProcess(t *testing.T) {
	if enc := os.Getenv(cliChildEnv); enc != "" {
		var args []string
		if err := json.Unmarshal([]byte(enc), &args); err != nil {
			os.Exit(3)
		}
		os.Args = append([]string{"adpnode"}, args...)
		main()
		os.Exit(0)
	}
	keyPath, id := newKeyFile(t)
	signed, _, err := runCLI(t, cliCard, "card", "sign", "--key", keyPath)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, []byte(signed), 0o644); err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(signed, `"echo"`, `"ECHO"`, 1)
	missing := filepath.Join(t.TempDir(), "missing.json")
	a2aSigned := bridgeTestdata(t, "golden/card.a2a.signed.json")
	a2aTampered := strings.Replace(a2aSigned, "translator-zh-en", "translator-zh-fr", 1)
	for _, tc := range []struct {
		name       string
		stdin      string
		args       []string
		code       int
		out, err   string // substrings; "" means the stream must be empty
		jsonResult *bool  // when set, stdout is a verifyResult with this verdict
	}{
		{"key id", "", []string{"key", "id", keyPath}, 0, id, "", nil},
		{"verify file", "", []string{"card", "verify", file}, 0, "signature valid", "", nil},
		{"verify stdin", signed, []string{"card", "verify", "-"}, 0, "signature valid", "", nil},
		{"verify tampered", tampered, []string{"card", "verify"}, 1, "", "adpnode: signature not valid", nil},
		{"verify tampered --json", tampered, []string{"card", "verify", "--json"}, 1, "bad signature", "adpnode:", verdict(false)},
		{"verify --json", signed, []string{"card", "verify", "--json"}, 0, id, "", verdict(true)},
		{"verify missing file", "", []string{"card", "verify", missing}, 1, "", "adpnode: " + missing + ": file does not exist", nil},
		{"validate missing file", "", []string{"card", "validate", missing}, 1, "", "adpnode: " + missing + ": file does not exist", nil},
		{"validate", signed, []string{"card", "validate"}, 0, "valid", "", nil},
		{"validate bad", `{"name": ""}`, []string{"card", "validate"}, 1, "", "/name: is required", nil},
		{"validate bad --json", `{"name": ""}`, []string{"card", "validate", "--json"}, 1, "/name", "adpnode:", verdict(false)},
		{"convert", signed, []string{"card", "convert", "--from", "adp", "--to", "mcp"}, 0, `"tools"`, "", nil},
		{"convert unknown format", signed, []string{"card", "convert", "--from", "adp", "--to", "xml"}, 1, "", "adpnode:", nil},
		{"sign without key", cliCard, []string{"card", "sign"}, 2, "", "--key", nil},
		{"verify A2A", a2aSigned, []string{"card", "verify"}, 0, "A2A card signature valid", "", nil},
		{"verify A2A tampered", a2aTampered, []string{"card", "verify"}, 1, "", "adpnode: A2A card signature not valid", nil},
		{"verify A2A tampered --json", a2aTampered, []string{"card", "verify", "--json"}, 1, "does not verify", "adpnode:", verdict(false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLIProcess(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.out == "" && out != "" || !strings.Contains(out, tc.out) {
				t.Fatalf("stdout %q, want it to contain %q", out, tc.out)
			}
			if tc.err == "" && errOut != "" || !strings.Contains(errOut, tc.err) {
				t.Fatalf("stderr %q, want it to contain %q", errOut, tc.err)
			}
			if tc.jsonResult != nil {
				var res verifyResult
				if err := json.Unmarshal([]byte(out), &res); err != nil || res.Valid != *tc.jsonResult {
					t.Fatalf("stdout %q: %v, want valid=%v", out, err, *tc.jsonResult)
				}
			}
		})
	}
}

func verdict(valid bool) *bool { return &valid }

// TestCardA2A: card sign and card verify recognize an A2A AgentCard by its
// shape and sign and verify its JWS signatures (A2A 1.0 Section 8.4).
func TestCardA2A(t *testing.T) {
	keyPath, id := newKeyFile(t)
	signedADP, _, err := runCLI(t, cliCard, "card", "sign", "--key", keyPath)
	if err != nil {
		t.Fatal(err)
	}
	unsigned, _, err := runCLI(t, signedADP, "card", "convert", "--from", "adp", "--to", "a2a")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = runCLI(t, unsigned, "card", "verify")
	if err == nil || !strings.Contains(err.Error(), "A2A card signature not valid") || !strings.Contains(err.Error(), "no signatures") {
		t.Fatalf("unsigned A2A card: %v", err)
	}
	signed, _, err := runCLI(t, unsigned, "card", "sign", "--key", keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if kid, err := bridge.VerifyA2A([]byte(strings.TrimSpace(signed)), nil); err != nil || kid != id {
		t.Fatalf("card sign wrote an A2A card that verifies as %q, %v; want %s", kid, err, id)
	}
	out, _, err := runCLI(t, signed, "card", "verify")
	if err != nil || strings.TrimSpace(out) != "A2A card signature valid: "+id {
		t.Fatalf("verify: %q %v", out, err)
	}
	out, _, err = runCLI(t, signed, "card", "verify", "--json")
	var res verifyResult
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || !res.Valid || res.Format != "a2a" || res.AgentID != id {
		t.Fatalf("verify --json: %q %v", out, err)
	}

	tampered := strings.Replace(signed, `"echo"`, `"ECHO"`, 1)
	if tampered == signed {
		t.Fatal("nothing to tamper with")
	}
	_, _, err = runCLI(t, tampered, "card", "verify")
	if err == nil || !strings.Contains(err.Error(), "A2A card signature not valid") || !strings.Contains(err.Error(), "bad signature") {
		t.Fatalf("tampered A2A card: %v", err)
	}
	out, _, err = runCLI(t, tampered, "card", "verify", "--json")
	if err == nil || json.Unmarshal([]byte(out), &res) != nil || res.Valid || res.Format != "a2a" || !strings.Contains(res.Error, "does not verify") {
		t.Fatalf("tampered --json: %q %v", out, err)
	}

	// The vectors of package bridge: signed by adpnode and by jose.
	for _, name := range []string{"golden/card.a2a.signed.json", "interop/node-signed-a2a.json"} {
		if out, _, err := runCLI(t, bridgeTestdata(t, name), "card", "verify"); err != nil || !strings.Contains(out, "A2A card signature valid: agent://") {
			t.Fatalf("%s: %q %v", name, out, err)
		}
	}
}
