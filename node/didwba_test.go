package node_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/netguard"
	"github.com/adpnode/adpnode/node"
)

// TestDIDWbaIdentity: with a did:wba domain the node puts the DID on its
// card, serves the DID document at the DID's path on its API, and
// authenticates as the DID (ANPClient) to an ANP endpoint behind its own
// DIDWbaAuthenticator on an HTTPS server (test CA, no network) that
// serves the document; its own card then
// checks as domain-verified, a card of another key claiming the DID does
// not, and a restart without the domain gives the card its did:key back.
func TestDIDWbaIdentity(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	n := startNode(t, testNode{name: "did agent", didWbaDomain: fmt.Sprintf("example.com:%d/agents/alice", port)})
	did := fmt.Sprintf("did:wba:example.com%%3A%d:agents:alice", port)
	if n.Card().DID != did || n.DID() != did {
		t.Fatalf("card did %q, node DID %q; want %q", n.Card().DID, n.DID(), did)
	}
	path, h := n.DIDDocument()
	if path != "/agents/alice/did.json" || h == nil {
		t.Fatalf("DIDDocument path %q", path)
	}
	status, body := api(t, n, http.MethodGet, path, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s on the API: %d %s", path, status, body)
	}
	doc, err := didwba.ParseDocument([]byte(body), did)
	if err != nil {
		t.Fatal(err)
	}
	pub := agentKey(t, n.AgentID())
	if !doc.ListsKey(pub) || len(doc.Service) != 1 || !strings.HasSuffix(doc.Service[0].ServiceEndpoint, "/ad.json") {
		t.Errorf("DID document %s does not list the node's key and its ANP description", body)
	}

	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	tr := client.Transport.(*http.Transport).Clone()
	// example.com is the test server, on loopback: the guard allows it
	// explicitly.
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return netguard.NewDialer(0, true).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	client.Transport = tr
	n.SetDIDResolverClient(client)
	mux.Handle("GET "+path, h)
	mux.Handle("GET /anp/hello", n.DIDWbaAuthenticator().Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := didwba.DIDFrom(r.Context())
		io.WriteString(w, d)
	})))
	resp, err := n.ANPClient(client).Get(fmt.Sprintf("https://example.com:%d/anp/hello", port))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(got) != did {
		t.Fatalf("ANP service answered %d %q (WWW-Authenticate %q), want 200 and the node's DID", resp.StatusCode, got, resp.Header.Get("WWW-Authenticate"))
	}

	ctx := context.Background()
	if v := n.DomainVerified(ctx, n.Card()); v != node.DomainVerified {
		t.Errorf("own card: %q, want verified", v)
	}
	impostor := cardtest.Card(t, 7, `{"id": "ID", "name": "impostor", "tools": [], "endpoints": []}`)
	impostor.DID = did
	if v := n.DomainVerified(ctx, impostor); !strings.HasPrefix(v, "unverified") {
		t.Errorf("card of another key claiming the DID: %q, want unverified", v)
	}
	if v := n.DomainVerified(ctx, cardtest.Card(t, 8, `{"id": "ID", "name": "plain", "tools": [], "endpoints": []}`)); v != "" {
		t.Errorf("card without did:wba: %q, want empty", v)
	}

	dir := n.DataDir()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	again := startNode(t, testNode{dataDir: dir})
	if d := again.Card().DID; !strings.HasPrefix(d, "did:key:") {
		t.Errorf("after a restart without the domain the card's did is %q, want the did:key", d)
	}
}

// agentKey is the Ed25519 key an agent id names.
func agentKey(t *testing.T, id string) ed25519.PublicKey {
	t.Helper()
	p, err := adp.PeerIDFromAgentID(id)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := p.ExtractPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := pk.Raw()
	return raw
}
