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
	// The vector's description holds U+2028, which cards may no longer
	// carry in text (internal/termtext): it is checked as a signature, and
	// the validator must refuse it at that one place.
	c, err := adp.ParseCard(signed)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(); err != nil {
		t.Fatalf("card signed by node does not verify: %v", err)
	}
	var ve *adp.ValidationError
	if err := c.Validate(); !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "/description" {
		t.Fatalf("Validate = %v, want one problem at /description (U+2028)", err)
	}
	seed := readTestdata(t, filepath.Join("interop", "node-key.seed"))
	if c.ID != adp.AgentID(mustPeerFromSeedHex(t, seed)) {
		t.Fatalf("card id %s is not the committed key's", c.ID)
	}
	tampered := readTestdata(t, filepath.Join("interop", "node-signed-tampered.json"))
	tc, err := adp.ParseCard(tampered)
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.Verify(); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("tampered node card: %v, want ErrBadSignature", err)
	}
}
