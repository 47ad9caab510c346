package dht_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/p2pnet"
)

// newKey returns a fresh Ed25519 key.
func newKey(t testing.TB) crypto.PrivKey {
	t.Helper()
	sk, err := p2pnet.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// newCard returns a card signed by sk with the given seq and skills.
func newCard(t testing.TB, sk crypto.PrivKey, seq uint64, name string, skills ...string) *adp.Card {
	t.Helper()
	c := &adp.Card{
		Name:        name,
		Description: "test agent " + name,
		Version:     "1.0.0",
		Skills:      skills,
		Seq:         &seq,
		Metadata:    &adp.Metadata{UpdatedAt: time.Date(2026, 1, 1, 0, 0, int(seq), 0, time.UTC).Format(time.RFC3339)},
	}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c
}

// tamper returns raw with the first occurrence of old replaced by new (same
// length), so the JSON stays valid and the signature no longer matches.
func tamper(t testing.TB, raw []byte, old, new string) []byte {
	t.Helper()
	if len(old) != len(new) || !bytes.Contains(raw, []byte(old)) {
		t.Fatalf("cannot tamper %q -> %q", old, new)
	}
	return bytes.Replace(append([]byte(nil), raw...), []byte(old), []byte(new), 1)
}
