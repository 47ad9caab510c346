package agenturi_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/agenturi"
)

// TestADPIDs: the ids package adp emits are bare agent URIs that
// normalization leaves alone; the base58 form parses too, but normalizing it
// (lower-casing the host) yields a different, wrong peer ID, which is why
// ADP emits base36.
func TestADPIDs(t *testing.T) {
	for b := byte(1); b <= 8; b++ {
		sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := peer.IDFromPrivateKey(sk)
		if err != nil {
			t.Fatal(err)
		}
		id := adp.AgentID(p)
		u, err := agenturi.Parse(id)
		if err != nil {
			t.Fatalf("Parse(%q): %v", id, err)
		}
		if !u.Bare() || u.String() != id || u.Normalize().String() != id {
			t.Fatalf("%q: Bare %v, String %q, normal form %q", id, u.Bare(), u.String(), u.Normalize().String())
		}
		b58 := "agent://" + p.String()
		u58, err := agenturi.Parse(b58)
		if err != nil || !u58.Bare() {
			t.Fatalf("Parse(%q) = %v, %v", b58, u58, err)
		}
		if got, err := adp.NormalizeAgentID(u58.String()); err != nil || got != id {
			t.Fatalf("NormalizeAgentID(%q) = %q, %v; want %q", b58, got, err, id)
		}
		if n := u58.Normalize().String(); n == b58 {
			t.Fatalf("normalizing a base58 id left it unchanged: %q", n)
		} else if got, err := adp.PeerIDFromAgentID(n); err == nil && got == p {
			t.Fatalf("lower-cased base58 id %q still names the key", n)
		}
	}
}
