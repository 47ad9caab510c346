package didwba_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/didwba"
)

// TestIdentity: without a domain an identity has no DID, document or
// signing client; with one, it serves the document of its key at the
// DID's path, its client signs as the DID, and a domain that makes no DID
// is ErrBadDID.
func TestIdentity(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(nil)
	bare, err := didwba.NewIdentity(key, "", "/ad.json")
	if err != nil {
		t.Fatal(err)
	}
	base := &http.Client{}
	if path, h := bare.Document(); bare.DID() != "" || path != "" || h != nil || bare.Client(base) != base || bare.Authenticator() == nil {
		t.Fatalf("identity without a domain: DID %q, document %q", bare.DID(), path)
	}
	if _, err := didwba.NewIdentity(key, "not a domain!", "/ad.json"); !errors.Is(err, didwba.ErrBadDID) {
		t.Fatalf("bad domain: %v, want ErrBadDID", err)
	}

	id, err := didwba.NewIdentity(key, "agents.example/alice", "/agents/alice/ad.json")
	if err != nil {
		t.Fatal(err)
	}
	if id.DID() != "did:wba:agents.example:alice" {
		t.Fatalf("DID %q", id.DID())
	}
	path, h := id.Document()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	doc, err := didwba.ParseDocument(rec.Body.Bytes(), id.DID())
	if err != nil || path != "/alice/did.json" || !doc.ListsKey(pub) || !strings.Contains(rec.Body.String(), "https://agents.example/agents/alice/ad.json") {
		t.Fatalf("document at %q: %s (%v)", path, rec.Body, err)
	}
	var sent string
	signing := id.Client(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})})
	resp, err := signing.Get("https://service.example/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(sent, "DIDWba ") || !strings.Contains(sent, id.DID()) {
		t.Fatalf("Authorization %q, want a DIDWba credential of %s", sent, id.DID())
	}
}

// TestCheckKey: a key the DID's document lists is verified; another key,
// a document that is not served and a DID that is not one are
// unverified, each saying why.
func TestCheckKey(t *testing.T) {
	w := newWorld(t)
	signer, pub := w.agent("carol")
	_, key, _ := ed25519.GenerateKey(nil)
	checker, err := didwba.NewIdentity(key, "", "", didwba.WithResolverOptions(didwba.WithHTTPClient(w.client)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other, _, _ := ed25519.GenerateKey(nil)
	missing := fmt.Sprintf("did:wba:example.com%%3A%d:agents:nobody", w.port)
	for _, tc := range []struct {
		did  string
		pub  ed25519.PublicKey
		want string
	}{
		{signer.DID, pub, didwba.Verified},
		{signer.DID, other, didwba.UnverifiedPrefix + "no such Ed25519 authentication key"},
		{missing, pub, didwba.UnverifiedPrefix + "DID document not resolved"},
		{"did:web:example.com", pub, didwba.UnverifiedPrefix + "not a valid did:wba DID"},
	} {
		if got := checker.CheckKey(ctx, tc.did, tc.pub); got != tc.want {
			t.Errorf("CheckKey(%s) = %q, want %q", tc.did, got, tc.want)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if got := checker.CheckKey(done, missing+"2", pub); got != didwba.Pending {
		t.Errorf("CheckKey with no time left = %q, want %q", got, didwba.Pending)
	}
}
