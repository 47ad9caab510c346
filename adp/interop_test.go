package adp_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/adpnode/adpnode/adp"
)

// TestInteropVectors verifies cards signed by the independent Node.js
// implementation in scripts/interop (the canonicalize package, RFC 8785's
// authors' JCS, and node:crypto Ed25519) with the committed key in
// testdata/interop.
func TestInteropVectors(t *testing.T) {
	signed := readTestdata(t, filepath.Join("interop", "node-signed.json"))
	c, err := adp.DecodeVerified(signed)
	if err != nil {
		t.Fatalf("card signed by node does not verify: %v", err)
	}
	seed := readTestdata(t, filepath.Join("interop", "node-key.seed"))
	if c.ID != adp.AgentID(mustPeerFromSeedHex(t, seed)) {
		t.Fatalf("card id %s is not the committed key's", c.ID)
	}
	tampered := readTestdata(t, filepath.Join("interop", "node-signed-tampered.json"))
	if _, err := adp.DecodeVerified(tampered); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("tampered node card: %v, want ErrBadSignature", err)
	}
}
