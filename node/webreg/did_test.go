package webreg_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/webreg"
)

// TestDIDWbaCheck: a signed card naming a did:wba DID is checked with the
// JWS key as the card's id; the DID is recorded as verified only when the
// check passes, and a failed check does not refuse the card.
func TestDIDWbaCheck(t *testing.T) {
	c := cardtest.Card(t, 8, `{"id": "ID", "name": "Domain Agent", "did": "did:wba:agents.example.org",
	  "skills": ["travel/booking"], "endpoints": [{"protocol": "https", "uri": "https://agents.example.org/a2a"}]}`)
	a2a, err := bridge.ToA2A(c)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bridge.SignA2A(a2a, cardtest.Key(t, 8))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(signed) }))
	defer srv.Close()
	for _, pass := range []bool{true, false} {
		var checked *adp.Card
		r := newRegistry(t, webreg.WithDIDCheck(func(_ context.Context, c *adp.Card) bool { checked = c; return pass }))
		reg, err := r.Register(context.Background(), srv.URL+"/card.json", "a", local)
		if err != nil {
			t.Fatal(err)
		}
		if checked == nil || checked.ID != c.ID || checked.DID != "did:wba:agents.example.org" {
			t.Fatalf("the DID check got %+v, want the card with id %s", checked, c.ID)
		}
		if got := slices.Contains(reg.Verified, webreg.VerifiedDIDWba); got != pass {
			t.Errorf("check %v: verified %v", pass, reg.Verified)
		}
	}
}
