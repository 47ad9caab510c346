package adp_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/gowebpki/jcs"
	"github.com/libp2p/go-libp2p/core/crypto"
)

func signedFull(t *testing.T) (*adp.Card, crypto.PrivKey) {
	t.Helper()
	sk := fixedKey(t, 1)
	c, err := adp.ParseCard(fullCardFor(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	return c, sk
}

func TestSignVerify(t *testing.T) {
	c, _ := signedFull(t)
	if len(c.Signature) != 86 {
		t.Fatalf("signature %q is not 86 base64url characters", c.Signature)
	}
	if err := c.Verify(); err != nil {
		t.Fatalf("Verify after Sign: %v", err)
	}
	got, err := adp.DecodeVerified(c.Raw())
	if err != nil {
		t.Fatalf("DecodeVerified(Raw): %v", err)
	}
	if got.Name != c.Name || *got.Seq != *c.Seq {
		t.Fatal("decoded card differs")
	}
	// Raw is canonical: JCS leaves it unchanged.
	if again, _ := jcs.Transform(c.Raw()); !bytes.Equal(again, c.Raw()) {
		t.Fatal("Raw after Sign is not JCS")
	}
	// Whitespace and member order do not matter to the signature.
	var generic map[string]any
	if err := json.Unmarshal(c.Raw(), &generic); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(generic, "", "   ")
	if _, err := adp.DecodeVerified(pretty); err != nil {
		t.Fatalf("re-formatted card: %v", err)
	}
	// Signing is deterministic (Ed25519).
	c2, _ := signedFull(t)
	if !bytes.Equal(c.Raw(), c2.Raw()) {
		t.Fatal("two signatures of one card differ")
	}
}

func TestSignSetsAndChecksID(t *testing.T) {
	sk := fixedKey(t, 3)
	c := &adp.Card{Name: "anon"}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	if want := adp.AgentID(mustPeer(t, 3)); c.ID != want {
		t.Fatalf("ID = %s, want %s", c.ID, want)
	}
	// The base58 form of the same key is accepted and normalized.
	c = &adp.Card{ID: "agent://" + mustPeer(t, 3).String(), Name: "b58"}
	if err := c.Sign(sk); err != nil {
		t.Fatal(err)
	}
	if c.ID != adp.AgentID(mustPeer(t, 3)) {
		t.Fatalf("ID not normalized: %s", c.ID)
	}
	c = &adp.Card{ID: adp.AgentID(mustPeer(t, 4)), Name: "other"}
	if err := c.Sign(sk); !errors.Is(err, adp.ErrBadID) {
		t.Fatalf("signing another key's card: %v", err)
	}
	secpSK, _, _ := crypto.GenerateSecp256k1Key(deterministicReader{})
	if err := (&adp.Card{Name: "x"}).Sign(secpSK); !errors.Is(err, adp.ErrKeyType) {
		t.Fatalf("secp256k1 key: %v", err)
	}
	if err := (&adp.Card{}).Sign(sk); !errors.Is(err, adp.ErrInvalid) {
		t.Fatalf("card without name signed: %v", err)
	}
}

func TestVerifyRejectsTampering(t *testing.T) {
	c, _ := signedFull(t)
	raw := string(c.Raw())
	other := adp.AgentID(mustPeer(t, 9))
	otherDID, _ := adp.DIDKey(fixedKey(t, 9).GetPublic())
	sig := c.Signature
	for name, mutate := range map[string]func(string) string{
		"name":          func(s string) string { return strings.Replace(s, "translator-zh-en", "translator-zh-EN", 1) },
		"seq":           func(s string) string { return strings.Replace(s, `"seq":7`, `"seq":8`, 1) },
		"unknown field": func(s string) string { return strings.Replace(s, `"zzz":"last"`, `"zzz":"lost"`, 1) },
		"extension":     func(s string) string { return strings.Replace(s, `78.5`, `98.5`, 1) },
		"added field":   func(s string) string { return strings.Replace(s, `{"constraints"`, `{"added":1,"constraints"`, 1) },
		"removed field": func(s string) string { return strings.Replace(s, `,"zzz":"last"`, ``, 1) },
		"empty string": func(s string) string {
			return strings.Replace(s, `{"constraints"`, `{"description2":"","constraints"`, 1)
		},
		"other id": func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, c.ID, other), c.DID, otherDID)
		},
		"signature bit": func(s string) string { return strings.Replace(s, sig, flipChar(sig), 1) },
	} {
		t.Run(name, func(t *testing.T) {
			tampered := mutate(raw)
			if tampered == raw {
				t.Fatal("mutation did not apply")
			}
			_, err := adp.DecodeVerified([]byte(tampered))
			if !errors.Is(err, adp.ErrBadSignature) {
				t.Fatalf("got %v, want ErrBadSignature", err)
			}
		})
	}
}

func flipChar(s string) string {
	b := []byte(s)
	if b[10] == 'A' {
		b[10] = 'B'
	} else {
		b[10] = 'A'
	}
	return string(b)
}

func TestVerifyErrors(t *testing.T) {
	c, _ := signedFull(t)
	unsigned := strings.Replace(string(c.Raw()), `,"signature":"`+c.Signature+`"`, ``, 1)
	if _, err := adp.DecodeVerified([]byte(unsigned)); !errors.Is(err, adp.ErrUnsigned) {
		t.Fatalf("unsigned: %v", err)
	}
	for _, bad := range []string{"abc", c.Signature + "==", c.Signature[:85], c.Signature + "A", strings.Repeat("+", 86)} {
		d := c.Clone()
		d.Signature = bad
		if err := d.Verify(); !errors.Is(err, adp.ErrBadSignature) {
			t.Errorf("signature %q: %v", bad, err)
		}
	}
	d := c.Clone()
	d.ID = "agent://nobody"
	if err := d.Verify(); !errors.Is(err, adp.ErrBadID) {
		t.Fatalf("bad id: %v", err)
	}
	if _, err := adp.DecodeVerified(bytes.Repeat([]byte(" "), adp.MaxCardSize+1)); !errors.Is(err, adp.ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	if _, err := adp.DecodeVerified([]byte(`{"id":"agent://x","signature":"` + c.Signature + `"}`)); !errors.Is(err, adp.ErrInvalid) {
		t.Fatalf("invalid card: %v", err)
	}
}

// TestVerifyUsesReceivedBytes signs a card the way an independent signer
// would (JCS of the exact document, which holds an empty string, a number
// in exponent form and unusual escapes that a re-encoding would change) and
// checks that Verify accepts it.
func TestVerifyUsesReceivedBytes(t *testing.T) {
	sk := fixedKey(t, 5)
	id := adp.AgentID(mustPeer(t, 5))
	doc := `{"name":"ext\u00e9rieur","id":"` + id + `","description":"","x-num":1E3,"extensions":{"n":{"v":1.0}},"tools":[{"name":"t","x":"\/"}]}`
	canon, err := jcs.Transform([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := sk.Raw()
	sig := ed25519.Sign(ed25519.PrivateKey(raw), canon)
	signed := doc[:len(doc)-1] + `,"signature":"` + base64.RawURLEncoding.EncodeToString(sig) + `"}`
	c, err := adp.DecodeVerified([]byte(signed))
	if err != nil {
		t.Fatalf("externally signed card: %v", err)
	}
	// The re-encoded card drops the empty description, so its own encoding
	// would not verify: Verify must have used the received bytes.
	c2 := c.Clone()
	c2.Signature = c.Signature
	reenc, _ := c2.MarshalJSON()
	if _, err := adp.DecodeVerified(reenc); !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("re-encoding unexpectedly verifies: %v", err)
	}
}
