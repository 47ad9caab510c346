package didwba_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/adpnode/adpnode/adp/didwba"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden pins the bytes of a DIDWba header and a DID document made
// from a fixed key (Ed25519 signatures are deterministic): the draft's
// example DID, nonce and timestamp, signed for its service. A change to
// JCS, hashing, encoding or header syntax shows here. Regenerate with
// go test -run TestGolden -update ./adp/didwba.
func TestGolden(t *testing.T) {
	seed := sha256.Sum256([]byte("adpnode didwba golden key"))
	key := ed25519.NewKeyFromSeed(seed[:])
	h := didwba.Header{DID: "did:wba:example.com%3A8800:user:alice", Nonce: "abc123", Timestamp: "2024-12-05T12:34:56Z", VerificationMethod: "key-1"}
	if err := h.Sign(key, "example.com"); err != nil {
		t.Fatal(err)
	}
	doc, err := didwba.NewDocument(h.DID, key.Public().(ed25519.PublicKey), "https://example.com:8800/agents/alice/ad.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := h.SigningInput("example.com")
	for name, got := range map[string][]byte{
		"header.txt": []byte(fmt.Sprintf("seed %x\nsigning input %x\n%s\n", seed, in, h)),
		"did.json":   append(body, '\n'),
	} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if err := h.VerifySignature(key.Public().(ed25519.PublicKey), "example.com"); err != nil {
		t.Error(err)
	}
	pub, err := doc.AuthenticationKey("key-1")
	if err != nil || !pub.Equal(key.Public()) {
		t.Errorf("the golden document's key-1 = %x, %v", pub, err)
	}
}
