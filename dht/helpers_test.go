package dht_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/dht"
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

// mustGetCard fails the test unless d's GetCard of agentID returns want,
// byte for byte; what names the step in the failure.
func mustGetCard(t testing.TB, ctx context.Context, d *dht.DHT, what, agentID string, want *adp.Card, opts ...dht.GetOption) {
	t.Helper()
	got, err := d.GetCard(ctx, agentID, opts...)
	if err != nil {
		t.Fatalf("%s: GetCard: %v", what, err)
	}
	if !bytes.Equal(got.Raw(), want.Raw()) {
		t.Fatalf("%s: GetCard returned another card: %s", what, got.Raw())
	}
}
