package node_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node"
)

// get sends method to url with the given headers and returns the
// response with its body read.
func get(t *testing.T, method, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestPublicHTTP: the public server answers the well-known documents with
// caching headers (the A2A card signed by the node's key), its read-only
// view, and nothing of the admin API.
func TestPublicHTTP(t *testing.T) {
	n := startNode(t, testNode{name: "public face", demo: true, publicHTTP: true})
	pub := n.PublicURL()
	if pub == "" {
		t.Fatal("PublicURL empty with PublicHTTP set")
	}

	resp, body := get(t, "GET", pub+bridge.A2AWellKnownPath)
	if resp.StatusCode != 200 {
		t.Fatalf("A2A card: %d %s", resp.StatusCode, body)
	}
	if kid, err := bridge.VerifyA2A([]byte(strings.TrimSpace(body)), nil); err != nil || kid != n.AgentID() {
		t.Fatalf("VerifyA2A = %q, %v; want kid %s", kid, err, n.AgentID())
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || resp.Header.Get("Cache-Control") != "public, max-age=300" || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Last-Modified") == "" {
		t.Errorf("A2A card headers: %v", resp.Header)
	}
	if resp, body = get(t, "GET", pub+bridge.A2AWellKnownPath, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified || body != "" {
		t.Errorf("If-None-Match %s: %d %q, want 304 and no body", etag, resp.StatusCode, body)
	}
	if resp, body = get(t, "HEAD", pub+bridge.A2AWellKnownPath); resp.StatusCode != 200 || body != "" || resp.Header.Get("ETag") != etag {
		t.Errorf("HEAD: %d %q ETag %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	// The local card names the local A2A server; the public one, with no
	// A2A server there, names nothing of the loopback API.
	if _, local := get(t, "GET", n.APIURL()+bridge.A2AWellKnownPath); !strings.Contains(local, n.APIURL()+"/a2a") {
		t.Errorf("the local A2A card does not name %s/a2a: %s", n.APIURL(), local)
	}
	if strings.Contains(body2(t, pub+bridge.A2AWellKnownPath), n.APIURL()) {
		t.Errorf("the public A2A card names the loopback API %s", n.APIURL())
	}

	// The AgentCard names the node's persisted ULID and the public URL.
	resp, body = get(t, "GET", pub+bridge.AgentCardWellKnownPath)
	var ac struct {
		AgentID  string `json:"agent_id"`
		Endpoint struct {
			URL string `json:"url"`
		} `json:"endpoint"`
	}
	if err := json.Unmarshal([]byte(body), &ac); err != nil || ac.AgentID != n.AgentCardID() || ac.Endpoint.URL != pub {
		t.Errorf("AgentCard: agent_id %q (want %q), endpoint %q (want %q), %v", ac.AgentID, n.AgentCardID(), ac.Endpoint.URL, pub, err)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=3600" {
		t.Errorf("AgentCard Cache-Control %q", cc)
	}
	for _, p := range []string{"/.well-known/adp-card.json", "/.well-known/agent.json", "/.well-known/agent-descriptions", "/", "/view/v1/status", "/view/v1/cards", "/view/v1/peers"} {
		if resp, body := get(t, "GET", pub+p); resp.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, body)
		}
	}
	if _, body := get(t, "GET", pub+"/view/v1/status"); strings.Contains(body, n.APIURL()) {
		t.Errorf("public status shows the API URL: %s", body)
	}

	// Nothing of the admin API, whatever the method.
	for _, p := range []string{"/v1/status", "/v1/cards", "/v1/card", "/v1/events", "/mcp", "/metrics", "/healthz"} {
		if resp, body := get(t, "GET", pub+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s on the public server: %d %s, want 404", p, resp.StatusCode, body)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		for _, p := range []string{"/v1/invoke", "/mcp", bridge.A2AWellKnownPath} {
			if resp, _ := get(t, m, pub+p); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow %q, want 405 and GET, HEAD", m, p, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	}
}

func body2(t *testing.T, url string) string {
	_, b := get(t, "GET", url)
	return b
}

// TestAgentCardIDPersists: the AgentCard agent_id is a ULID made at the
// first start and the same after a restart; a file that holds no ULID
// stops the node rather than be replaced.
func TestAgentCardIDPersists(t *testing.T) {
	dir := t.TempDir()
	if _, err := node.Init(dir, node.InitOptions{Name: "ulid"}); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, testNode{dataDir: dir, noAPI: true})
	id := n.AgentCardID()
	if len(id) != 26 {
		t.Fatalf("AgentCardID %q is not a ULID", id)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, node.AgentCardIDFile))
	if err != nil || strings.TrimSpace(string(raw)) != id {
		t.Fatalf("%s holds %q (%v), want %s", node.AgentCardIDFile, raw, err, id)
	}
	again := startNode(t, testNode{dataDir: dir, noAPI: true})
	if again.AgentCardID() != id {
		t.Fatalf("after a restart AgentCardID = %s, want %s", again.AgentCardID(), id)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if _, err := node.Init(other, node.InitOptions{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	if o := startNode(t, testNode{dataDir: other, noAPI: true}); o.AgentCardID() == id {
		t.Fatalf("two data directories got the same ULID %s", id)
	}

	if err := os.WriteFile(filepath.Join(dir, node.AgentCardIDFile), []byte("not a ulid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = node.New(node.Config{DataDir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, SmallMemory: true})
	if !errors.Is(err, node.ErrCorruptDataDir) {
		t.Fatalf("New with a corrupt %s: %v, want ErrCorruptDataDir", node.AgentCardIDFile, err)
	}
}

// TestPublicA2A: with PublicA2A "open" the public server answers A2A
// JSON-RPC at POST /a2a, which its A2A card names, and a message reaches
// the agent's tool; with "didwba" an unauthenticated request is refused
// with a DIDWba challenge, and the public server serves the DID document.
func TestPublicA2A(t *testing.T) {
	const send = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"one two three"}],"metadata":{"skillId":"wordcount"}}}}`
	post := func(url string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Post(url, "application/json", strings.NewReader(send))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}

	open := startNode(t, testNode{name: "open a2a", demo: true, publicHTTP: true, publicA2A: node.PublicA2AOpen})
	pub := open.PublicURL()
	_, raw := get(t, "GET", pub+bridge.A2AWellKnownPath)
	if kid, err := bridge.VerifyA2A([]byte(strings.TrimSpace(raw)), nil); err != nil || kid != open.AgentID() {
		t.Fatalf("VerifyA2A of the public card = %q, %v", kid, err)
	}
	var card struct {
		SupportedInterfaces []struct{ URL, ProtocolBinding string }
	}
	if err := json.Unmarshal([]byte(raw), &card); err != nil || len(card.SupportedInterfaces) == 0 ||
		card.SupportedInterfaces[0].URL != pub+"/a2a" || card.SupportedInterfaces[0].ProtocolBinding != "JSONRPC" {
		t.Fatalf("public A2A card interfaces %+v (%v), want JSONRPC at %s/a2a first", card.SupportedInterfaces, err, pub)
	}
	if resp, body := post(pub + "/a2a"); resp.StatusCode != 200 || !strings.Contains(body, `"state":"completed"`) || !strings.Contains(body, `"words":3`) {
		t.Fatalf("message/send on the public server: %d %s", resp.StatusCode, body)
	}

	closed := startNode(t, testNode{name: "read-only", demo: true, publicHTTP: true})
	if resp, _ := post(closed.PublicURL() + "/a2a"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /a2a on a read-only public server: %d, want 405", resp.StatusCode)
	}

	did := startNode(t, testNode{name: "didwba a2a", demo: true, publicHTTP: true, publicA2A: node.PublicA2ADIDWba, didWbaDomain: "agents.example.com"})
	resp, body := post(did.PublicURL() + "/a2a")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(strings.Join(resp.Header.Values("WWW-Authenticate"), ","), "DIDWba") {
		t.Errorf("unauthenticated POST /a2a: %d %v %s, want 401 with a DIDWba challenge", resp.StatusCode, resp.Header.Values("WWW-Authenticate"), body)
	}
	if resp, body := get(t, "GET", did.PublicURL()+"/.well-known/did.json"); resp.StatusCode != 200 || !strings.Contains(body, did.DID()) {
		t.Errorf("DID document on the public server: %d %s", resp.StatusCode, body)
	}
}

// TestPublicBehindProxy: with the test's loopback address named as a
// trusted proxy, each client the proxy names has its own discovery budget
// (a burst of 10 from one address); without it the header is ignored and
// the eleventh discovery from loopback is refused.
func TestPublicBehindProxy(t *testing.T) {
	discover := func(n *node.Node, client string) int {
		resp, _ := get(t, "GET", n.PublicURL()+"/view/v1/discover?q=translate", "X-Forwarded-For", client)
		return resp.StatusCode
	}
	proxied := startNode(t, testNode{name: "behind a proxy", publicHTTP: true, publicProxies: []string{"127.0.0.1/32"}})
	for i := range 12 {
		if c := discover(proxied, fmt.Sprintf("203.0.113.%d", i+1)); c != 200 {
			t.Fatalf("client %d's first discovery through the proxy: %d", i+1, c)
		}
	}
	direct := startNode(t, testNode{name: "no proxy", publicHTTP: true})
	// At once, so that the budget's refill (1 a second) cannot keep up
	// however slow the machine.
	var refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodGet, direct.PublicURL()+"/view/v1/discover?q=translate", nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if refused.Load() == 0 {
		t.Fatal("12 discoveries from loopback naming 12 clients, no proxy trusted: none refused")
	}
}
