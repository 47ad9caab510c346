package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/mcpserver"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// inertNode answers the MCP server with empty results or ErrNotFound, so
// that a fuzzed message exercises the server's decoding and checks.
type inertNode struct{}

func (inertNode) Status(context.Context) (*nodeapi.Status, error) {
	return &nodeapi.Status{AgentID: "agent://k51a", Addrs: []string{}}, nil
}
func (inertNode) OwnCard(context.Context) (json.RawMessage, error) {
	return json.RawMessage(`{"id":"agent://k51a","name":"inert"}`), nil
}
func (inertNode) UpdateCard(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, store.ErrNotFound
}
func (inertNode) CardPage(context.Context, int) (*httpapi.CardList, error) {
	return &httpapi.CardList{}, nil
}
func (inertNode) CardByID(context.Context, string) (*httpapi.CardView, error) {
	return nil, store.ErrNotFound
}
func (inertNode) Discover(context.Context, *adp.DiscoverRequest, string) (*adp.DiscoverResponse, error) {
	return &adp.DiscoverResponse{}, nil
}
func (inertNode) Describe(context.Context, string, []string) (json.RawMessage, error) {
	return nil, store.ErrNotFound
}
func (inertNode) Invoke(context.Context, *httpapi.InvokeRequest, func(json.RawMessage) error) (*httpapi.InvokeResponse, error) {
	return nil, store.ErrNotFound
}
func (inertNode) Rate(context.Context, string, int) (*httpapi.RateResponse, error) {
	return nil, store.ErrNotFound
}

// post sends one JSON-RPC body to h's /mcp, in session sid when set. A
// request the server holds open (a stream) is cut after a second.
func post(h http.Handler, sid string, body []byte) *httptest.ResponseRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:5001"+httpapi.MCPPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzMCPMessage sends any body as a message of an initialized MCP
// session on the node's Streamable HTTP transport (the /mcp route): the
// server never panics and never answers with a server error.
func FuzzMCPMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"discover","arguments":{"query":"translate","limit":3}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"invoke","arguments":{"agent":"agent://k51b","method":"echo","body":{}}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rate","arguments":{"agent":1,"stars":"x"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"adp://cards"}}`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}`,
		`{`, `null`,
	} {
		f.Add([]byte(seed))
	}
	srv := mcpserver.New(inertNode{})
	f.Cleanup(func() { srv.Close() })
	h := srv.Handler()
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := post(h, "", initialize)
		sid := rec.Header().Get("Mcp-Session-Id")
		if rec.Code != http.StatusOK || sid == "" {
			t.Fatalf("initialize: %d %s", rec.Code, rec.Body.Bytes())
		}
		defer func() {
			req := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1:5001"+httpapi.MCPPath, nil)
			req.Header.Set("Mcp-Session-Id", sid)
			h.ServeHTTP(httptest.NewRecorder(), req)
		}()
		post(h, sid, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		if rec := post(h, sid, body); rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.Bytes())
		}
	})
}
