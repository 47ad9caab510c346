package didwba

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/adpnode/adpnode/internal/netguard"
)

// TestResolverOwnClient: without WithHTTPClient the resolver's client
// uses no proxy and dials through the guard, which refuses a loopback
// address unless WithPrivateAddresses(true) and a link-local one always.
func TestResolverOwnClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dial := func(r *Resolver, addr string) error {
		tr := r.client.Transport.(*http.Transport)
		if tr.Proxy != nil {
			t.Error("the resolver's own client uses a proxy")
		}
		c, err := tr.DialContext(context.Background(), "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(NewResolver(), ln.Addr().String()); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("default resolver dialling loopback: %v, want refused", err)
	}
	if err := dial(NewResolver(WithPrivateAddresses(true)), ln.Addr().String()); err != nil {
		t.Errorf("resolver allowing private addresses dialling loopback: %v", err)
	}
	if err := dial(NewResolver(WithPrivateAddresses(true)), "169.254.169.254:80"); !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("dialling the metadata address: %v, want refused", err)
	}
}

func TestSameOrigin(t *testing.T) {
	first, _ := http.NewRequest(http.MethodGet, "https://example.com:8443/a/did.json", nil)
	for _, tc := range []struct {
		to string
		ok bool
	}{
		{"https://example.com:8443/b/did.json", true},
		{"https://EXAMPLE.com:8443/b/did.json", true},
		{"http://example.com:8443/a/did.json", false},
		{"https://example.com/a/did.json", false},
		{"https://other.example/a/did.json", false},
	} {
		req, _ := http.NewRequest(http.MethodGet, tc.to, nil)
		if err := sameOrigin(req, []*http.Request{first}); (err == nil) != tc.ok {
			t.Errorf("redirect to %s: %v, want allowed %v", tc.to, err, tc.ok)
		}
	}
	via := make([]*http.Request, maxRedirects+1)
	for i := range via {
		via[i] = first
	}
	if err := sameOrigin(first, via); err == nil {
		t.Errorf("redirect number %d allowed", len(via)+1)
	}
}
