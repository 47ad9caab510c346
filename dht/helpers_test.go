package dht_test

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

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
