package didwba_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/adpnode/adpnode/adp/didwba"
)

func TestFromDomain(t *testing.T) {
	for _, tc := range []struct {
		domain, did, url string
	}{
		{"example.com", "did:wba:example.com", "https://example.com/.well-known/did.json"},
		{"example.com:8443", "did:wba:example.com%3A8443", "https://example.com:8443/.well-known/did.json"},
		{"example.com/user/alice", "did:wba:example.com:user:alice", "https://example.com/user/alice/did.json"},
		{"example.com:8443/agents/a_1.b-2", "did:wba:example.com%3A8443:agents:a_1.b-2", "https://example.com:8443/agents/a_1.b-2/did.json"},
		{"https://Agent.Example.COM/alice/", "did:wba:agent.example.com:alice", "https://agent.example.com/alice/did.json"},
	} {
		id, err := didwba.FromDomain(tc.domain)
		if err != nil {
			t.Errorf("FromDomain(%q): %v", tc.domain, err)
			continue
		}
		if id.String() != tc.did || id.DocumentURL() != tc.url {
			t.Errorf("FromDomain(%q) = %s, %s; want %s, %s", tc.domain, id, id.DocumentURL(), tc.did, tc.url)
		}
		back, err := didwba.Parse(tc.did)
		if err != nil || back.String() != tc.did {
			t.Errorf("Parse(%q) = %v, %v", tc.did, back, err)
		}
		if u, err := didwba.ToURL(tc.did); err != nil || u != tc.url {
			t.Errorf("ToURL(%q) = %q, %v; want %q", tc.did, u, err, tc.url)
		}
	}
}

func TestFromDomainRefuses(t *testing.T) {
	for _, domain := range []string{
		"", "127.0.0.1", "127.0.0.1:8443", "[::1]:443", "example.com:0", "example.com:70000", "example.com:x",
		"example.com/a//b", "example.com/../etc", "example.com/a b", "example.com/a%2Fb", "exa mple.com",
		"-example.com", "example..com", "example", "example.com/ä", "localhost:3000",
	} {
		if id, err := didwba.FromDomain(domain); !errors.Is(err, didwba.ErrBadDID) {
			t.Errorf("FromDomain(%q) = %s, %v; want ErrBadDID", domain, id, err)
		}
	}
}

func TestParse(t *testing.T) {
	id, err := didwba.Parse("did:wba:Example.com%3a8800:user:alice")
	if err != nil {
		t.Fatal(err)
	}
	if id.Host != "example.com" || id.Port != 8800 || len(id.Path) != 2 || id.String() != "did:wba:example.com%3A8800:user:alice" {
		t.Errorf("Parse = %+v (%s)", id, id)
	}
	for _, did := range []string{
		"did:web:example.com", "did:wba:", "did:wba:example.com%3A080", "did:wba:example.com%3A", "did:wba:1.2.3.4",
		"did:wba:example.com:", "did:wba:example.com::a", "did:wba:example.com/a", "did:wba:example.com:a/b",
	} {
		if _, err := didwba.Parse(did); !errors.Is(err, didwba.ErrBadDID) {
			t.Errorf("Parse(%q) = %v, want ErrBadDID", did, err)
		}
	}
}

func TestAuthenticationKey(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	const did = "did:wba:example.com:alice"
	doc, err := didwba.NewDocument(did, pub, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"key-1", "#key-1", did + "#key-1"} {
		if k, err := doc.AuthenticationKey(m); err != nil || !k.Equal(pub) {
			t.Errorf("AuthenticationKey(%q) = %x, %v", m, k, err)
		}
	}
	// An embedded method is read, of any Ed25519 form; a method of another
	// DID or a key that is not Ed25519 is not.
	x := base64.RawURLEncoding.EncodeToString(pub)
	doc.Authentication = []json.RawMessage{
		json.RawMessage(`{"id":"#jwk","type":"JsonWebKey2020","publicKeyJwk":{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}}`),
		json.RawMessage(`{"id":"did:wba:evil.example#key-1","type":"Ed25519VerificationKey2020","publicKeyMultibase":"` + doc.VerificationMethod[0].PublicKeyMultibase + `"}`),
		json.RawMessage(`{"id":"#ec","type":"JsonWebKey2020","publicKeyJwk":{"kty":"EC","crv":"P-256","x":"` + x + `"}}`),
	}
	if k, err := doc.AuthenticationKey("jwk"); err != nil || !k.Equal(pub) {
		t.Errorf("embedded JWK: %x, %v", k, err)
	}
	for _, m := range []string{"did:wba:evil.example#key-1", "ec", "key-1"} {
		if _, err := doc.AuthenticationKey(m); !errors.Is(err, didwba.ErrNoKey) {
			t.Errorf("AuthenticationKey(%q) = %v, want ErrNoKey", m, err)
		}
	}
}
