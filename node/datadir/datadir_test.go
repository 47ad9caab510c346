package datadir_test

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/datadir"
)

func TestIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	if _, err := datadir.LoadIdentity(dir); !errors.Is(err, datadir.ErrNotInitialized) {
		t.Fatalf("load from a missing dir: %v", err)
	}
	sk, err := datadir.CreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, datadir.IdentityFile)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("identity.key mode %o", st.Mode().Perm())
	}
	if _, err := datadir.CreateIdentity(dir); !errors.Is(err, datadir.ErrAlreadyInitialized) {
		t.Fatalf("second create: %v", err)
	}
	got, err := datadir.LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(sk) {
		t.Fatal("loaded key differs")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := datadir.LoadIdentity(dir); !errors.Is(err, datadir.ErrBadIdentity) {
		t.Fatalf("world-readable key: %v", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	other, _, err := crypto.GenerateSecp256k1Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherRaw, err := crypto.MarshalPrivateKey(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		content []byte
		why     string // what follows the file name in the error
	}{
		{[]byte("junk"), " is not an adpnode key"},
		{make([]byte, 5000), " too large"},
		{otherRaw, ": key type Secp256k1, want Ed25519"},
	} {
		if err := os.WriteFile(path, tc.content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := datadir.LoadIdentity(dir); !errors.Is(err, datadir.ErrBadIdentity) || !strings.Contains(err.Error(), path+tc.why) {
			t.Fatalf("key file of %d bytes: %v, want ErrBadIdentity saying %q", len(tc.content), err, tc.why)
		}
	}
}

// TestCard: the card written is the card read, for its own key only, and
// a card changed after signing is refused.
func TestCard(t *testing.T) {
	dir := t.TempDir()
	sk, err := datadir.CreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := peer.IDFromPrivateKey(sk)
	if _, err := datadir.LoadCard(dir, self); !errors.Is(err, datadir.ErrNotInitialized) {
		t.Fatalf("no card.json: %v", err)
	}
	seq := uint64(3)
	c := &adp.Card{ID: adp.AgentID(self), Name: "datadir", Description: "a card on disk", Version: "1.0.0", Seq: &seq}
	if err := datadir.WriteCard(dir, c); !errors.Is(err, adp.ErrUnsigned) {
		t.Fatalf("unsigned card written: %v", err)
	}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	if err := datadir.WriteCard(dir, c); err != nil {
		t.Fatal(err)
	}
	got, err := datadir.LoadCard(dir, self)
	if err != nil || string(got.Raw()) != string(c.Raw()) {
		t.Fatalf("read back %s, %v", got.Raw(), err)
	}

	other, err := datadir.CreateIdentity(filepath.Join(dir, "other"))
	if err != nil {
		t.Fatal(err)
	}
	otherID, _ := peer.IDFromPrivateKey(other)
	if _, err := datadir.LoadCard(dir, otherID); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("card of another key: %v", err)
	}

	path := filepath.Join(dir, datadir.CardFile)
	tampered := strings.Replace(string(c.Raw()), `"datadir"`, `"tampered"`, 1)
	if err := os.WriteFile(path, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := datadir.LoadCard(dir, self); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("tampered card: %v, want ErrBadSignature", err)
	}
}

// TestAgentCardID: made once, kept, and a file that holds no ULID is
// refused rather than replaced.
func TestAgentCardID(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	id, err := datadir.AgentCardID(dir, now)
	if err != nil || len(id) != 26 {
		t.Fatalf("first: %q, %v", id, err)
	}
	again, err := datadir.AgentCardID(dir, now.Add(time.Hour))
	if err != nil || again != id {
		t.Fatalf("second: %q, %v, want %q", again, err, id)
	}
	other, err := datadir.AgentCardID(t.TempDir(), now)
	if err != nil || other == id {
		t.Fatalf("another directory: %q, %v", other, err)
	}
	path := filepath.Join(dir, datadir.AgentCardIDFile)
	if err := os.WriteFile(path, []byte("not a ulid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := datadir.AgentCardID(dir, now); !errors.Is(err, datadir.ErrCorrupt) {
		t.Fatalf("corrupt file: %v, want ErrCorrupt", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "not a ulid\n" {
		t.Fatalf("corrupt file replaced by %q", raw)
	}
}
