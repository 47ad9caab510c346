package mcpagent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/node/mcpagent"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// TestStreamableHTTP: the same server over Streamable HTTP, progress
// included.
func TestStreamableHTTP(t *testing.T) {
	s := mcptest.NewServer()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	a, err := mcpagent.New(mcpagent.URL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	w := &aitptest.Chunks{}
	if err := a.Call(ctx, w, &aitp.Request{Method: "count", Body: []byte(`{"n":3}`), StreamReply: true}, ""); err != nil {
		t.Fatal(err)
	}
	checkProgress(t, w.Got(), 3)
	if st := a.Status(); st.Transport != "http" || st.State != mcpagent.StateRunning {
		t.Fatalf("status %+v", st)
	}
}
