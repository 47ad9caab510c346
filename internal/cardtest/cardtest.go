// Package cardtest builds deterministic signed agent cards for tests of
// the packages that rank, store and serve them. Only tests import it.
package cardtest

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// Key returns the Ed25519 key whose seed is 32 bytes of b.
func Key(tb testing.TB, b byte) crypto.PrivKey {
	tb.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = b
	}
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

// Card parses a card template, replacing every "ID" (quoted) by the
// agent id of Key(b), and signs it with that key.
func Card(tb testing.TB, b byte, tmpl string) *adp.Card {
	tb.Helper()
	sk := Key(tb, b)
	pid, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := adp.ParseCard([]byte(strings.ReplaceAll(tmpl, `"ID"`, `"`+adp.AgentID(pid)+`"`)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Sign(sk); err != nil {
		tb.Fatal(err)
	}
	return c
}

// Signed returns a card of sk's agent named name with the given seq and
// skills, signed by sk; its metadata.updated_at grows with seq.
func Signed(tb testing.TB, sk crypto.PrivKey, seq uint64, name string, skills ...string) *adp.Card {
	tb.Helper()
	c := &adp.Card{
		Name:        name,
		Description: "test agent " + name,
		Version:     "1.0.0",
		Skills:      skills,
		Seq:         &seq,
		Metadata:    &adp.Metadata{UpdatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second).Format(time.RFC3339)},
	}
	if err := c.Sign(sk); err != nil {
		tb.Fatal(err)
	}
	return c
}

// Tamper returns a copy of raw with the first occurrence of old replaced
// by new, of the same length, so that the JSON stays valid and the
// signature no longer matches.
func Tamper(tb testing.TB, raw []byte, old, new string) []byte {
	tb.Helper()
	if len(old) != len(new) || !bytes.Contains(raw, []byte(old)) {
		tb.Fatalf("cannot tamper %q -> %q", old, new)
	}
	return bytes.Replace(append([]byte(nil), raw...), []byte(old), []byte(new), 1)
}
