package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// runCLI runs the adpnode root command in-process.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

func TestKeyNewAndID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.key")
	out, _, err := runCLI(t, "", "key", "new", "--out", path)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	if !strings.HasPrefix(id, "agent://k51") {
		t.Fatalf("key new printed %q", out)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	// The file holds MarshalPrivateKey bytes of an Ed25519 key.
	raw, _ := os.ReadFile(path)
	sk, err := crypto.UnmarshalPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := peer.IDFromPrivateKey(sk)
	if adp.AgentID(p) != id {
		t.Fatalf("printed id %s is not the file's key %s", id, adp.AgentID(p))
	}

	out, _, err = runCLI(t, "", "key", "id", path)
	if err != nil || strings.TrimSpace(out) != id {
		t.Fatalf("key id = %q, %v; want %s", out, err, id)
	}
	out, _, err = runCLI(t, string(raw), "key", "id", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var info keyInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if info.AgentID != id || info.PeerID != p.String() || !strings.HasPrefix(info.DID, "did:key:z6Mk") {
		t.Fatalf("key id --json = %+v", info)
	}

	// No silent overwrite.
	if _, _, err := runCLI(t, "", "key", "new", "--out", path); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite without --force: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, raw) {
		t.Fatal("key file changed")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCLI(t, "", "key", "new", "--out", path, "--force", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.AgentID == id || info.File != path {
		t.Fatalf("--force --json: %q %v", out, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("overwritten key file mode %v", st.Mode().Perm())
	}
}

func TestKeyErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCLI(t, "", "key", "new"); err == nil {
		t.Fatal("key new without --out succeeded")
	}
	if _, _, err := runCLI(t, "", "key", "id", filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
	if _, _, err := runCLI(t, "not a key", "key", "id"); err == nil {
		t.Fatal("garbage accepted as a key")
	}
	secp, _, _ := crypto.GenerateSecp256k1Key(strings.NewReader(strings.Repeat("x", 64)))
	raw, _ := crypto.MarshalPrivateKey(secp)
	if _, _, err := runCLI(t, string(raw), "key", "id"); err == nil || !strings.Contains(err.Error(), "Ed25519") {
		t.Fatalf("secp256k1 key: %v", err)
	}
	if _, _, err := runCLI(t, strings.Repeat("k", maxKeyFile+1), "key", "id"); err == nil {
		t.Fatal("oversized key accepted")
	}
}
