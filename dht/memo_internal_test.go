package dht

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

func signed(t *testing.T, sk crypto.PrivKey, seq uint64) []byte {
	t.Helper()
	c := &adp.Card{Name: "alpha", Seq: &seq, Metadata: &adp.Metadata{UpdatedAt: time.Unix(int64(seq), 0).UTC().Format(time.RFC3339)}}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c.Raw()
}

// TestMemoValidatorAgrees checks that remembering valid records changes
// no decision, that only valid records are remembered, and that the
// oldest is forgotten first.
func TestMemoValidatorAgrees(t *testing.T) {
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := peer.IDFromPrivateKey(sk)
	key := Key(p)
	v1, v2, v3 := signed(t, sk, 1), signed(t, sk, 2), signed(t, sk, 3)
	forged := bytes.Replace(append([]byte(nil), v3...), []byte("alpha"), []byte("alphb"), 1)

	m := newMemoValidator(2, nil)
	for round := range 2 {
		for _, v := range [][]byte{v1, v2, forged, []byte("x")} {
			want := Validator{}.Validate(key, v)
			got := m.Validate(key, v)
			if (want == nil) != (got == nil) || !sameSentinels(got, want) {
				t.Fatalf("round %d: memo says %v, Validator says %v", round, got, want)
			}
		}
		for _, vs := range [][][]byte{{v1, v2}, {v2, v1}, {forged, v1}} {
			wi, werr := Validator{}.Select(key, vs)
			gi, gerr := m.Select(key, vs)
			if wi != gi || (werr == nil) != (gerr == nil) {
				t.Fatalf("round %d: memo selects %d, %v; Validator %d, %v", round, gi, gerr, wi, werr)
			}
		}
	}
	if !m.remembers(key, v1) || !m.remembers(key, v2) || m.remembers(key, forged) {
		t.Fatal("memo remembers the wrong records")
	}
	if err := m.Validate(key, v3); err != nil {
		t.Fatal(err)
	}
	if m.remembers(key, v1) || !m.remembers(key, v3) {
		t.Fatal("memo of size 2 did not forget the oldest record")
	}
	// The memo is keyed by key and value: a valid value under another key
	// is checked, and refused.
	q, _ := peer.IDFromPrivateKey(mustKey(t))
	if err := m.Validate(Key(q), v2); !errors.Is(err, ErrKeyMismatch) {
		t.Fatalf("memo under another key = %v, want ErrKeyMismatch", err)
	}
}

func mustKey(t *testing.T) crypto.PrivKey {
	t.Helper()
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// sameSentinels reports whether a and b match the same sentinel errors.
func sameSentinels(a, b error) bool {
	for _, s := range []error{adp.ErrBadSignature, adp.ErrMalformed, adp.ErrUnsigned, adp.ErrInvalid, adp.ErrTooLarge, ErrKeyMismatch, ErrBadKey} {
		if errors.Is(a, s) != errors.Is(b, s) {
			return false
		}
	}
	return true
}
