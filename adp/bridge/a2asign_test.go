package bridge_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// signedA2A returns the A2A export of the test card signed by its key
// (fixedKey(0x42)), the vector pinned in testdata/golden/card.a2a.signed.json
// and checked by scripts/interop.
func signedA2A(tb testing.TB) ([]byte, *adp.Card, crypto.PrivKey) {
	tb.Helper()
	c, sk := signedCard(tb)
	doc, err := bridge.ToA2A(c)
	if err != nil {
		tb.Fatal(err)
	}
	signed, err := bridge.SignA2A(doc, sk)
	if err != nil {
		tb.Fatal(err)
	}
	return signed, c, sk
}

// TestSignA2AGolden pins the signed A2A card and checks it by hand: one
// signature whose protected header is {"alg":"EdDSA","kid":<agent id>,
// "typ":"JOSE"}, an Ed25519 signature over BASE64URL(header) "."
// BASE64URL(JCS(document without signatures)), the document itself in JCS
// form.
func TestSignA2AGolden(t *testing.T) {
	signed, c, sk := signedA2A(t)
	golden(t, "card.a2a.signed.json", signed)

	canon, err := jcs.Transform(signed)
	if err != nil || !bytes.Equal(canon, signed) {
		t.Fatalf("signed card is not in JCS form (%v)", err)
	}
	var d map[string]json.RawMessage
	if err := json.Unmarshal(signed, &d); err != nil {
		t.Fatal(err)
	}
	var sigs []struct{ Protected, Signature string }
	if err := json.Unmarshal(d["signatures"], &sigs); err != nil || len(sigs) != 1 {
		t.Fatalf("signatures %s: %v", d["signatures"], err)
	}
	header, err := base64.RawURLEncoding.DecodeString(sigs[0].Protected)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"alg":"EdDSA","kid":"` + c.ID + `","typ":"JOSE"}`; string(header) != want {
		t.Fatalf("protected header %s, want %s", header, want)
	}
	delete(d, "signatures")
	body, _ := json.Marshal(d)
	payload, err := jcs.Transform(body)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := sk.GetPublic().Raw()
	sig, err := base64.RawURLEncoding.DecodeString(sigs[0].Signature)
	if err != nil {
		t.Fatal(err)
	}
	input := sigs[0].Protected + "." + base64.RawURLEncoding.EncodeToString(payload)
	if !ed25519.Verify(raw, []byte(input), sig) {
		t.Fatal("signature does not verify over the JWS signing input")
	}

	kid, err := bridge.VerifyA2A(signed, nil)
	if err != nil || kid != c.ID {
		t.Fatalf("VerifyA2A(nil) = %q, %v; want %s", kid, err, c.ID)
	}
	if kid, err := bridge.VerifyA2A(signed, sk.GetPublic()); err != nil || kid != c.ID {
		t.Fatalf("VerifyA2A(pub) = %q, %v", kid, err)
	}
	if _, err := bridge.VerifyA2A(signed, fixedKey(t, 1).GetPublic()); !errors.Is(err, bridge.ErrA2ASignature) || !errors.Is(err, adp.ErrBadSignature) {
		t.Fatalf("VerifyA2A(other key) = %v, want ErrA2ASignature", err)
	}
}

// TestVerifyA2ATampered: every change to the signed content, the header or
// the signature breaks the signature; members added at their default value
// do not, since A2A 1.0 (Section 8.4.1) removes them before signing.
func TestVerifyA2ATampered(t *testing.T) {
	signed, _, _ := signedA2A(t)
	other, err := peer.IDFromPrivateKey(fixedKey(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	header := func(h string) func(d map[string]any) {
		return func(d map[string]any) {
			d["signatures"].([]any)[0].(map[string]any)["protected"] = base64.RawURLEncoding.EncodeToString([]byte(h))
		}
	}
	sig0 := func(d map[string]any) map[string]any { return d["signatures"].([]any)[0].(map[string]any) }
	tests := []struct {
		name   string
		mutate func(d map[string]any)
		ok     bool
	}{
		{"name", func(d map[string]any) { d["name"] = "translator-zh-fr" }, false},
		{"added member", func(d map[string]any) { d["x-added"] = true }, false},
		{"skill tag", func(d map[string]any) {
			s := d["skills"].([]any)[0].(map[string]any)
			s["tags"] = append(s["tags"].([]any), "evil")
		}, false},
		{"interface url", func(d map[string]any) {
			d["supportedInterfaces"].([]any)[0].(map[string]any)["url"] = "https://evil.example.com/"
		}, false},
		{"streaming", func(d map[string]any) { d["capabilities"].(map[string]any)["streaming"] = false }, false},
		{"signature", func(d map[string]any) {
			s := []byte(sig0(d)["signature"].(string))
			s[3] ^= 1
			sig0(d)["signature"] = string(s)
		}, false},
		{"alg none", header(`{"alg":"none","kid":"x","typ":"JOSE"}`), false},
		{"other kid", header(`{"alg":"EdDSA","kid":"` + adp.AgentID(other) + `","typ":"JOSE"}`), false},
		{"crit", func(d map[string]any) {
			h, _ := base64.RawURLEncoding.DecodeString(sig0(d)["protected"].(string))
			header(string(h[:len(h)-1]) + `,"crit":["exp"]}`)(d)
		}, false},
		{"no signatures", func(d map[string]any) { delete(d, "signatures") }, false},
		{"defaults added", func(d map[string]any) {
			d["securitySchemes"] = map[string]any{}
			d["provider"] = nil
			d["skills"].([]any)[1].(map[string]any)["inputModes"] = []any{}
			d["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["required"] = false
		}, true},
		{"pretty-printed", func(map[string]any) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d map[string]any
			if err := json.Unmarshal(signed, &d); err != nil {
				t.Fatal(err)
			}
			tt.mutate(d)
			doc, _ := json.MarshalIndent(d, "", "  ")
			_, err := bridge.VerifyA2A(doc, nil)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("VerifyA2A = %v, want success", err)
			case !tt.ok && err == nil:
				t.Fatal("tampered card verifies")
			case !tt.ok && tt.name == "no signatures" && !errors.Is(err, bridge.ErrA2AUnsigned):
				t.Fatalf("VerifyA2A = %v, want ErrA2AUnsigned", err)
			case !tt.ok && tt.name != "no signatures" && !errors.Is(err, bridge.ErrA2ASignature):
				t.Fatalf("VerifyA2A = %v, want ErrA2ASignature", err)
			}
		})
	}
}

// TestSignA2ADefaults: the document SignA2A writes is the payload of A2A
// 1.0 Section 8.4.1, the spec's own example: the empty extensions list
// goes, the explicitly set optional booleans and the REQUIRED empty
// description and skills stay.
func TestSignA2ADefaults(t *testing.T) {
	sk := fixedKey(t, 3)
	src := `{"name": "Example Agent", "description": "", "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []}, "skills": []}`
	signed, err := bridge.SignA2A([]byte(src), sk)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]json.RawMessage
	if err := json.Unmarshal(signed, &d); err != nil {
		t.Fatal(err)
	}
	delete(d, "signatures")
	got, _ := json.Marshal(d)
	got, _ = jcs.Transform(got)
	if want := `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`; string(got) != want {
		t.Fatalf("signed content %s, want %s", got, want)
	}
	if _, err := bridge.VerifyA2A([]byte(src[:len(src)-1]+`, "signatures": `+string(signaturesOf(t, signed))+`}`), nil); err != nil {
		t.Fatalf("the signature does not verify on the card as first written: %v", err)
	}
}

// TestSignA2AKeys: signing again with the same key replaces its signature;
// another key adds one, and each verifies with its own key.
func TestSignA2AKeys(t *testing.T) {
	signed, c, sk := signedA2A(t)
	again, err := bridge.SignA2A(signed, sk)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, signed) {
		t.Fatal("signing a signed card again with the same key changed it")
	}
	sk2 := fixedKey(t, 9)
	both, err := bridge.SignA2A(signed, sk2)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []any
	if err := json.Unmarshal(signaturesOf(t, both), &sigs); err != nil || len(sigs) != 2 {
		t.Fatalf("%d signatures, want 2 (%v)", len(sigs), err)
	}
	p2, _ := peer.IDFromPrivateKey(sk2)
	if kid, err := bridge.VerifyA2A(both, nil); err != nil || kid != c.ID {
		t.Fatalf("VerifyA2A(nil) = %q, %v; want the first signer %s", kid, err, c.ID)
	}
	if kid, err := bridge.VerifyA2A(both, sk2.GetPublic()); err != nil || kid != adp.AgentID(p2) {
		t.Fatalf("VerifyA2A(second key) = %q, %v", kid, err)
	}
	if _, err := bridge.SignA2A([]byte(`[1]`), sk); !errors.Is(err, bridge.ErrMalformed) {
		t.Fatalf("SignA2A(array) = %v, want ErrMalformed", err)
	}
}

func signaturesOf(tb testing.TB, doc []byte) json.RawMessage {
	tb.Helper()
	var d map[string]json.RawMessage
	if err := json.Unmarshal(doc, &d); err != nil {
		tb.Fatal(err)
	}
	return d["signatures"]
}

// TestInteropA2A verifies the A2A card signed by jose in
// scripts/interop (node interop.mjs sign) and rejects its tampered copy.
// The other direction, jose verifying SignA2A's output, is run by
// scripts/interop/run.sh on testdata/golden/card.a2a.signed.json.
func TestInteropA2A(t *testing.T) {
	signed := readTestdata(t, "interop/node-signed-a2a.json")
	kid, err := bridge.VerifyA2A(signed, nil)
	if err != nil {
		t.Fatalf("jose-signed card: %v", err)
	}
	if want := "agent://k51qzi5uqu5dljtg5upm7x7ugan9lql3ewyknv4r4mhhkwzn8n7cnbd1unfwgq"; kid != want {
		t.Fatalf("kid %s, want %s (the key in adp/testdata/interop/node-key.seed)", kid, want)
	}
	if _, err := bridge.VerifyA2A(readTestdata(t, "interop/node-signed-a2a-tampered.json"), nil); !errors.Is(err, bridge.ErrA2ASignature) {
		t.Fatalf("tampered jose-signed card: %v, want ErrA2ASignature", err)
	}
	c, err := bridge.FromA2A(signed)
	if err != nil || c.ID != kid {
		t.Fatalf("import: id %q, %v", c.ID, err)
	}
}

// FuzzSignA2A: VerifyA2A never fails but with an error on arbitrary input,
// and whatever SignA2A accepts it signs so that VerifyA2A finds the
// signer's kid, and signing its output again changes nothing.
func FuzzSignA2A(f *testing.F) {
	for _, name := range []string{"golden/card.a2a.signed.json", "interop/node-signed-a2a.json", "a2a.json", "a2a-1.0.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(`{"name":"","capabilities":{"extensions":[{"required":false,"params":{}}]},"provider":{"url":""},"skills":[{"tags":[]}],"x":[0,{}]}`))
	sk := fixedKey(f, 5)
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		f.Fatal(err)
	}
	want := adp.AgentID(p)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = bridge.VerifyA2A(data, nil)
		signed, err := bridge.SignA2A(data, sk)
		if err != nil {
			return
		}
		if kid, err := bridge.VerifyA2A(signed, sk.GetPublic()); err != nil || kid != want {
			t.Fatalf("signed card %s: VerifyA2A = %q, %v", signed, kid, err)
		}
		again, err := bridge.SignA2A(signed, sk)
		if err != nil || !bytes.Equal(again, signed) {
			t.Fatalf("signing again: %v\n%s\n%s", err, again, signed)
		}
	})
}
