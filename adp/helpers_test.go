package adp_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"github.com/libp2p/go-libp2p/core/peer"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// fixedKey returns a deterministic Ed25519 key whose seed is 32 copies of b.
func fixedKey(tb testing.TB, b byte) crypto.PrivKey {
	tb.Helper()
	seed := bytes.Repeat([]byte{b}, ed25519.SeedSize)
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

// fullCard is a card using every field, unknown ones included.
const fullCard = `{
  "id": "ID",
  "did": "DID",
  "name": "translator-zh-en",
  "description": "Chinese-English bidirectional translation",
  "version": "1.2.0",
  "status": "active",
  "skills": ["nlp/translation", "nlp/text-analysis", "python"],
  "tools": [
    {
      "name": "translate",
      "description": "Translate text between languages",
      "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
      "output_schema": {"type": "object"},
      "streaming": false,
      "idempotent": true,
      "x-cost": {"unit": "token", "price": 0.001}
    }
  ],
  "endpoints": [
    {"protocol": "aitp", "uri": "ID", "methods": ["translate"], "x-region": "eu"},
    {"protocol": "http+json", "uri": "https://api.example.com/translate/v1", "auth": "bearer", "priority": 10},
    {"protocol": "carrier-pigeon/2", "uri": "coop://roof"}
  ],
  "constraints": {"max_concurrent_tasks": 3, "max_input_tokens": 100000, "supported_languages": ["zh", "en", "ja"], "rate_limit": "60/min", "gpu": "a100"},
  "examples": [{"id": "ex1", "text": "Translate 你好 to English", "tags": ["nlp/translation"], "language": "en"}],
  "metadata": {"created_at": "2026-01-15T00:00:00Z", "updated_at": "2026-03-24T12:00:00Z", "ttl": 3600, "region": "eu-west"},
  "extensions": {"clawnet.reputation": {"score": 78.5, "tier": 16}, "oasf.labels": {"a": [1, 2, {"b": null}]}},
  "seq": 7,
  "x-future": {"nested": [true, false, null, "s", 1e3]},
  "zzz": "last"
}`

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustPeerFromSeedHex returns the peer of an Ed25519 key given as the hex
// of its 32-octet seed.
func mustPeerFromSeedHex(tb testing.TB, seedHex []byte) peer.ID {
	tb.Helper()
	seed, err := hex.DecodeString(strings.TrimSpace(string(seedHex)))
	if err != nil || len(seed) != ed25519.SeedSize {
		tb.Fatalf("bad seed file: %v", err)
	}
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		tb.Fatal(err)
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func mustDecodeSig(tb testing.TB, s string) []byte {
	tb.Helper()
	sig, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}
