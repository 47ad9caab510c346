package mcpserver_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/mcpserver"
	"github.com/adpnode/adpnode/store"
)

// envStdioAPI makes the test binary serve MCP on stdio for the node API
// it names, as adpnode mcp does: the stdio transport's server process.
const envStdioAPI = "ADPNODE_TEST_MCP_STDIO_API"

func TestMain(m *testing.M) {
	if api := os.Getenv(envStdioAPI); api != "" {
		os.Exit(serveStdio(api))
	}
	os.Exit(m.Run())
}

func serveStdio(api string) int {
	c, err := httpapi.NewClient(api, nil)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	srv := mcpserver.New(c, mcpserver.WithPollInterval(50*time.Millisecond))
	err = srv.Run(context.Background(), &mcp.StdioTransport{})
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// startNode starts a node with its API on loopback; Cleanup closes it.
func startNode(t *testing.T, name string, skills []string, bootstrap []string) *node.Node {
	t.Helper()
	dir := t.TempDir()
	if _, err := node.Init(dir, node.InitOptions{Name: name, Description: name + " on a test network", Skills: skills, DemoTools: true}); err != nil {
		t.Fatalf("Init: %v", err)
	}
	n, err := node.New(node.Config{
		DataDir: dir, Listen: []string{"/ip4/127.0.0.1/tcp/0"}, APIAddr: "127.0.0.1:0",
		Bootstrap: bootstrap, DemoAgent: true, SmallMemory: true,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.Start(ctx); err != nil {
		n.Close()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

func addrsOf(n *node.Node) []string {
	var out []string
	for _, a := range n.Addrs() {
		out = append(out, a.String())
	}
	return out
}

// holds waits until n holds the card of agent id.
func holds(t *testing.T, n *node.Node, id string) {
	t.Helper()
	polltest.For(t, 30*time.Second, n.AgentID()+" holds "+id, func() bool {
		recs, err := n.Cards(context.Background())
		return err == nil && slices.ContainsFunc(recs, func(r *store.Record) bool { return r.Card.ID == id })
	})
}

// client is an MCP client session with what the server sent it.
type client struct {
	cs *mcp.ClientSession

	mu          sync.Mutex
	progress    []*mcp.ProgressNotificationParams
	listChanged int
}

func (c *client) listChanges() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listChanged
}

func connect(t *testing.T, transport mcp.Transport) *client {
	t.Helper()
	c := &client{}
	cl := mcp.NewClient(&mcp.Implementation{Name: "adpnode-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, r.Params)
			c.mu.Unlock()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			c.mu.Lock()
			c.listChanged++
			c.mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}

// httpTransport is the node's own /mcp.
func httpTransport(n *node.Node) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: n.APIURL() + httpapi.MCPPath}
}

// stdioTransport runs this test binary as an MCP server on stdio in front
// of n's API, as a host runs adpnode mcp.
func stdioTransport(t *testing.T, n *node.Node) mcp.Transport {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envStdioAPI+"="+n.APIURL())
	cmd.Stderr = testWriter{t}
	return &mcp.CommandTransport{Command: cmd}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("mcp server: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}

var _ io.Writer = testWriter{}

// listed fails unless the session lists the cards of every id.
func listed(c *client, ids ...string) error {
	res, err := c.cs.ListResources(context.Background(), nil)
	if err != nil {
		return err
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, id := range ids {
		if !slices.Contains(uris, mcpserver.AgentURI(id)) {
			return &missingError{id, uris}
		}
	}
	return nil
}

type missingError struct {
	id   string
	uris []string
}

func (e *missingError) Error() string {
	return "resources lack " + e.id + ": " + strings.Join(e.uris, ", ")
}

func TestResourceListChangesWhenACardArrives(t *testing.T) {
	a := startNode(t, "caller", []string{"test/caller"}, nil)
	sessions := map[string]*client{"http": connect(t, httpTransport(a)), "stdio": connect(t, stdioTransport(t, a))}
	for name, c := range sessions {
		polltest.Until(t, 10*time.Second, func() error { return listed(c, a.AgentID()) })
		t.Logf("%s: %d list changes before", name, c.listChanges())
	}
	before := map[string]int{}
	for name, c := range sessions {
		before[name] = c.listChanges()
	}
	b := startNode(t, "newcomer", []string{"text/reverse"}, addrsOf(a))
	for name, c := range sessions {
		polltest.Until(t, 30*time.Second, func() error { return listed(c, a.AgentID(), b.AgentID()) })
		polltest.For(t, 10*time.Second, name+" notified of the new card", func() bool { return c.listChanges() > before[name] })
	}
}

// TestHTTPGuards checks that /mcp sits behind the API's guards: a
// rebound Host name and a web page's Origin are refused before the MCP
// server sees the request.
func TestHTTPGuards(t *testing.T) {
	a := startNode(t, "guarded", nil, nil)
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name, header, value string
	}{
		{"rebound host", "Host", "evil.example"},
		{"web page origin", "Origin", "https://evil.example"},
		{"cross-site fetch", "Sec-Fetch-Site", "cross-site"},
	} {
		req, err := http.NewRequest(http.MethodPost, a.APIURL()+httpapi.MCPPath, strings.NewReader(initBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.header == "Host" {
			req.Host = tc.value
		} else {
			req.Header.Set(tc.header, tc.value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", tc.name, resp.StatusCode)
		}
	}
}

// TestLazyBuildsOnFirstRequest: the endpoint builds its server on the
// first request, whose client then lists the node's own card at once
// (no poll to wait for); after Close a request is refused with 503.
func TestLazyBuildsOnFirstRequest(t *testing.T) {
	a := startNode(t, "lazy", nil, nil)
	l := mcpserver.NewLazy(httpapi.NewLocal(a), mcpserver.WithPollInterval(time.Hour))
	if l.Built() {
		t.Fatal("built before any request")
	}
	srv := httptest.NewServer(l)
	defer srv.Close()
	c := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	if !l.Built() {
		t.Fatal("not built after a client connected")
	}
	if err := listed(c, a.AgentID()); err != nil {
		t.Fatalf("first listing: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: status %d, want 503", resp.StatusCode)
	}
}

// TestStreamedReplyBound: invoke_agent keeps a streamed reply's chunks up
// to its bound and ends the call with a tool error past it. The reverse
// tool streams one chunk a word; the bound holds two.
func TestStreamedReplyBound(t *testing.T) {
	a := startNode(t, "caller", nil, nil)
	b := startNode(t, "reverser", nil, addrsOf(a))
	holds(t, a, b.AgentID())
	one := len(`{"text":"cba"}`)
	l := mcpserver.NewLazy(httpapi.NewLocal(a), mcpserver.WithPollInterval(time.Hour), mcpserver.WithMaxStreamedReply(2*one))
	srv := httptest.NewServer(l)
	defer srv.Close()
	defer l.Close() // first: it ends the sessions' open streams, which srv.Close waits for
	c := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})

	stream := func(text string) (*mcp.CallToolResult, error) {
		params := &mcp.CallToolParams{Name: mcpserver.ToolInvoke, Arguments: map[string]any{"agent": b.AgentID(), "tool": demoagent.Reverse, "arguments": map[string]any{"text": text}}}
		params.SetProgressToken("bound-" + text)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return c.cs.CallTool(ctx, params)
	}
	res, err := stream("abc def")
	if err != nil || res.IsError {
		t.Fatalf("two chunks, within the bound: %v, %+v", err, res)
	}
	res, err = stream("abc def ghi")
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "too large") {
		t.Fatalf("three chunks, past the bound: %+v, want a tool error saying the reply is too large", res)
	}
}

// TestCloseRefusesRequests: after Close the handler answers 503, also to
// the session a client opened before, and no request of it is left
// running (the test server's Close waits for them all).
func TestCloseRefusesRequests(t *testing.T) {
	a := startNode(t, "closing", nil, nil)
	s := mcpserver.New(httpapi.NewLocal(a), mcpserver.WithPollInterval(time.Hour))
	srv := httptest.NewServer(s.Handler())
	c := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	if err := listed(c, a.AgentID()); err != nil {
		t.Fatalf("listing before Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"late","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("initialize after Close: status %d, want 503", resp.StatusCode)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Close()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a request of the closed server is still running")
	}
}

// TestCloseDuringInitialize: an initialize that passed the handler's
// closed check and makes its session only after Close closed the others
// leaves no session open once it ends.
func TestCloseDuringInitialize(t *testing.T) {
	a := startNode(t, "closing", nil, nil)
	making, release := make(chan struct{}), make(chan struct{})
	s := mcpserver.New(httpapi.NewLocal(a), mcpserver.WithPollInterval(time.Hour),
		mcpserver.WithSessionIDHook(func() string {
			making <- struct{}{}
			<-release
			return rand.Text()
		}))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"late","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-making // past the closed check, about to make its session
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	srv.Close() // waits for the handler, which may still be ending the request
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	if n != 0 {
		t.Fatalf("%d sessions open after Close and the request's end", n)
	}
}
