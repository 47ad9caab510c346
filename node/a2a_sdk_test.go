package node_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/cardtest"
)

// a2aServerDir holds the A2A agent built on @a2a-js/sdk's server side
// (server.mjs) and its pinned packages, installed by
// `npm ci --prefix scripts/a2a-server` (.ci/run runs it).
var a2aServerDir = filepath.Join("..", "scripts", "a2a-server")

// startSDKServer runs scripts/a2a-server/server.mjs and returns its
// JSON-RPC endpoint URL; Cleanup stops it. Without node or the installed
// packages the test is skipped, except under CI=true, where it fails.
func startSDKServer(t *testing.T) string {
	t.Helper()
	nodeBin := nodeWithPackage(t, a2aServerDir, "@a2a-js/sdk")
	cmd := exec.Command(nodeBin, "server.mjs")
	cmd.Dir = a2aServerDir
	cmd.Stderr = testWriter{t}
	stdin, err := cmd.StdinPipe() // closing it stops the server
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "A2A_SERVER_URL="); ok {
				urls <- u
			}
		}
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	select {
	case u := <-urls:
		return u
	case err := <-exited:
		exited <- err
		t.Fatalf("A2A SDK server exited before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("A2A SDK server did not print its URL within 30s")
	}
	return ""
}

// sdkCard is the ADP card of the SDK server's agent, converted from the
// A2A card it serves (so its endpoints are what the A2A import makes of
// supportedInterfaces), with only the endpoints of the given protocols
// (a JSON-RPC one and an HTTP+JSON one are expected), signed by Key(b).
func sdkCard(t *testing.T, endpointURL string, b byte, protocols ...string) *adp.Card {
	t.Helper()
	base := strings.TrimSuffix(endpointURL, "/a2a")
	resp, err := http.Get(base + bridge.A2AWellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("agent card: %d %v", resp.StatusCode, err)
	}
	c, err := bridge.FromA2A(doc)
	if err != nil {
		t.Fatalf("FromA2A: %v\n%s", err, doc)
	}
	var have []string
	for _, e := range c.Endpoints {
		have = append(have, e.Protocol)
	}
	if !slices.Contains(have, "jsonrpc") || !slices.Contains(have, "http+json") {
		t.Fatalf("endpoints of the converted card: %v", have)
	}
	c.Endpoints = slices.DeleteFunc(c.Endpoints, func(e adp.Endpoint) bool { return !slices.Contains(protocols, e.Protocol) })
	sk := cardtest.Key(t, b)
	pid, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	c.ID = adp.AgentID(pid)
	if err := c.Sign(sk); err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return c
}

// TestInvokeA2ASDKServer: an agent served by the A2A JavaScript SDK
// (@a2a-js/sdk) behind a card with only A2A endpoints, taken in through
// the node's intake and invoked through the HTTP API that `adpnode
// invoke` uses: plain, streamed, as A2A 0.3, and a task that fails.
func TestInvokeA2ASDKServer(t *testing.T) {
	url := startSDKServer(t)
	n := startNode(t, testNode{name: "caller", a2aAllowPrivate: true})
	id := importA2A(t, n, sdkCard(t, url, 0x61, "jsonrpc", "http+json"))

	code, body := api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","body":{"text":"hello a2a"}}`, id))
	var out struct {
		Body json.RawMessage `json:"body"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &out) != nil || string(out.Body) != `["HELLO","A2A"]` {
		t.Fatalf("invoke: %d %s", code, body)
	}
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","stream":true,"body":{"text":"one two three"}}`, id))
	if code != 200 || body != "\"ONE\"\n\"TWO\"\n\"THREE\"\n" {
		t.Fatalf("invoke stream: %d %q", code, body)
	}
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"translate","body":{}}`, id))
	if code != http.StatusBadGateway || !strings.Contains(body, "failed: unknown tool translate") {
		t.Fatalf("invoke of a tool the agent lacks: %d %s", code, body)
	}

	// The HTTP+JSON (REST) binding of the same agent.
	idREST := importA2A(t, n, sdkCard(t, url, 0x63, "http+json"))
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","body":{"text":"rest call"}}`, idREST))
	if code != 200 || !strings.Contains(body, `"body":["REST","CALL"]`) {
		t.Fatalf("invoke over HTTP+JSON: %d %s", code, body)
	}
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","stream":true,"body":{"text":"x y"}}`, idREST))
	if code != 200 || body != "\"X\"\n\"Y\"\n" {
		t.Fatalf("invoke stream over HTTP+JSON: %d %q", code, body)
	}

	// The same server called as A2A 0.3 (the SDK's compatibility layer).
	id03 := importA2A(t, n, cardtest.Card(t, 0x62, `{"id": "ID", "name": "Upper 0.3", "description": "Upper-cases text.", "status": "active",
 "tools": [{"name": "upper"}], "endpoints": [{"protocol": "jsonrpc", "uri": "`+url+`", "protocolVersion": "0.3"}]}`))
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","body":{"text":"old"}}`, id03))
	if code != 200 || !strings.Contains(body, `"body":"OLD"`) {
		t.Fatalf("invoke over 0.3: %d %s", code, body)
	}
	code, body = api(t, n, "POST", "/v1/invoke", fmt.Sprintf(`{"agent":%q,"method":"upper","stream":true,"body":{"text":"a b"}}`, id03))
	if code != 200 || body != "\"A\"\n\"B\"\n" {
		t.Fatalf("invoke stream over 0.3: %d %q", code, body)
	}
}
