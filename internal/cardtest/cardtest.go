// Package cardtest builds deterministic signed agent cards for tests of
// the packages that rank, store and serve them. Only tests import it.
package cardtest

import (
	"crypto/ed25519"
	"strings"
	"testing"

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
