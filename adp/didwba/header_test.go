package didwba_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/didwba"
)

// draftHeader is the client request example of the ANP draft.
const draftHeader = `DIDWba did="did:wba:example.com%3A8800:user:alice", nonce="abc123", timestamp="2024-12-05T12:34:56Z", verification_method="key-1", signature="base64url(signature_of_nonce_timestamp_service_did)"`

func TestParseHeader(t *testing.T) {
	want := didwba.Header{
		DID: "did:wba:example.com%3A8800:user:alice", Nonce: "abc123", Timestamp: "2024-12-05T12:34:56Z",
		VerificationMethod: "key-1", Signature: "base64url(signature_of_nonce_timestamp_service_did)",
	}
	for _, s := range []string{
		draftHeader,
		strings.Replace(draftHeader, "DIDWba", "didwba", 1),
		strings.ReplaceAll(draftHeader, ", ", ","),
		strings.Replace(draftHeader, `nonce="abc123"`, `nonce=abc123, realm="x"`, 1),
		strings.Replace(draftHeader, `did=`, `DID = `, 1),
	} {
		h, err := didwba.ParseHeader(s)
		if err != nil || h != want {
			t.Errorf("ParseHeader(%s) = %+v, %v", s, h, err)
		}
	}
	h, err := didwba.ParseHeader(strings.Replace(draftHeader, "DIDWba ", `DIDWba v="1.1", `, 1))
	if err != nil || h.Version != "1.1" {
		t.Errorf("v parameter: %+v, %v", h, err)
	}
}

func TestParseHeaderRefuses(t *testing.T) {
	for name, s := range map[string]string{
		"empty":        "",
		"other scheme": strings.Replace(draftHeader, "DIDWba", "Bearer", 1),
		"no signature": strings.Replace(draftHeader, `, signature="base64url(signature_of_nonce_timestamp_service_did)"`, "", 1),
		"empty nonce":  strings.Replace(draftHeader, `nonce="abc123"`, `nonce=""`, 1),
		"repeated did": draftHeader + `, did="did:wba:evil.example"`,
		"unterminated": strings.TrimSuffix(draftHeader, `"`),
		"no equals":    strings.Replace(draftHeader, `nonce="abc123"`, `nonce`, 1),
		"junk after":   strings.Replace(draftHeader, `nonce="abc123"`, `nonce="abc123" x`, 1),
		"control char": strings.Replace(draftHeader, `abc123`, "abc\x01", 1),
		"long nonce":   strings.Replace(draftHeader, `abc123`, strings.Repeat("n", didwba.MaxNonceLength+1), 1),
		"too long":     draftHeader + `, x="` + strings.Repeat("x", didwba.MaxHeaderSize) + `"`,
		"scheme only":  "DIDWba",
		"no value":     strings.Replace(draftHeader, `nonce="abc123"`, `nonce=`, 1),
	} {
		if h, err := didwba.ParseHeader(s); !errors.Is(err, didwba.ErrBadHeader) {
			t.Errorf("%s: ParseHeader = %+v, %v; want ErrBadHeader", name, h, err)
		}
	}
}

// TestSigningInput checks the signed bytes against the draft's example:
// SHA-256 of the JCS form (members sorted) of nonce, timestamp, service
// and did; "aud" in place of "service" for the v="1.1" form.
func TestSigningInput(t *testing.T) {
	h := didwba.Header{DID: "did:wba:example.com:user:alice", Nonce: "abc123", Timestamp: "2024-12-05T12:34:56Z"}
	got, err := h.SigningInput("example.com")
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(`{"did":"did:wba:example.com:user:alice","nonce":"abc123","service":"example.com","timestamp":"2024-12-05T12:34:56Z"}`))
	if string(got) != string(want[:]) {
		t.Errorf("SigningInput = %x, want %x", got, want)
	}
	h.Version = "1.1"
	got, _ = h.SigningInput("example.com")
	want = sha256.Sum256([]byte(`{"aud":"example.com","did":"did:wba:example.com:user:alice","nonce":"abc123","timestamp":"2024-12-05T12:34:56Z"}`))
	if string(got) != string(want[:]) {
		t.Errorf("SigningInput v1.1 = %x, want %x", got, want)
	}
}

func TestHeaderSignRoundTrip(t *testing.T) {
	pub, sk, _ := ed25519.GenerateKey(nil)
	h := didwba.Header{DID: "did:wba:example.com:a", Nonce: `n"o\nce`, Timestamp: "2024-12-05T12:34:56Z", VerificationMethod: "key-1"}
	if err := h.Sign(sk, "example.com"); err != nil {
		t.Fatal(err)
	}
	back, err := didwba.ParseHeader(h.String())
	if err != nil || back != h {
		t.Fatalf("ParseHeader(String()) = %+v, %v; want %+v", back, err, h)
	}
	if err := back.VerifySignature(pub, "example.com"); err != nil {
		t.Errorf("VerifySignature: %v", err)
	}
	if err := back.VerifySignature(pub, "other.example"); !errors.Is(err, didwba.ErrSignature) {
		t.Errorf("VerifySignature for another service = %v, want ErrSignature", err)
	}
	back.Signature += "=="
	if err := back.VerifySignature(pub, "example.com"); err != nil {
		t.Errorf("padded signature: %v", err)
	}
}

// FuzzParseHeader: ParseHeader never panics, and what it accepts prints
// (String) to a header that parses to the same value.
func FuzzParseHeader(f *testing.F) {
	f.Add(draftHeader)
	f.Add(strings.Replace(draftHeader, "DIDWba ", `DIDWba v="1.1", `, 1))
	f.Add(`DIDWba did=a,nonce=b,timestamp=c,verification_method=d,signature=e`)
	f.Add(`DIDWba did="a\"b\\", nonce="b", timestamp="c", verification_method="d", signature="e", x=y`)
	f.Fuzz(func(t *testing.T, s string) {
		h, err := didwba.ParseHeader(s)
		if err != nil {
			if !errors.Is(err, didwba.ErrBadHeader) {
				t.Fatalf("error %v does not wrap ErrBadHeader", err)
			}
			return
		}
		back, err := didwba.ParseHeader(h.String())
		if err != nil || back != h {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", s, back, err, h)
		}
	})
}
