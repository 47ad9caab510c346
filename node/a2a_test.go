package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node"
)

// a2aCard is the card of an agent reachable only by the endpoints given
// (a JSON array), signed by Key(b).
func a2aCard(t *testing.T, b byte, endpoints string) *adp.Card {
	t.Helper()
	return cardtest.Card(t, b, `{"id": "ID", "name": "Upper", "description": "Upper-cases text.", "status": "active",
 "skills": ["text/transformation"], "tools": [{"name": "upper", "description": "Upper-case the text argument"}],
 "endpoints": `+endpoints+`}`)
}

// importA2A imports c into n and returns its agent id.
func importA2A(t *testing.T, n *node.Node, c *adp.Card) string {
	t.Helper()
	if _, err := n.ImportCard(context.Background(), c); err != nil {
		t.Fatalf("ImportCard: %v", err)
	}
	return c.ID
}

// fakeA2A is an A2A JSON-RPC server in Go whose task result is the
// arguments of the call's data part, or a failed task for tool "fail".
func fakeA2A(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     string `json:"id"`
			Params struct {
				Message struct {
					Parts []struct {
						Data struct {
							Tool      string          `json:"tool"`
							Arguments json.RawMessage `json:"arguments"`
						} `json:"data"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Params.Message.Parts) != 1 || r.Header.Get("A2A-Version") != "1.0" {
			http.Error(w, "bad request", 400)
			return
		}
		d := req.Params.Message.Parts[0].Data
		state, parts := "TASK_STATE_COMPLETED", `[{"data":`+string(d.Arguments)+`}]`
		if d.Tool == "fail" {
			state, parts = "TASK_STATE_FAILED", `[]`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":{"task":{"id":"t","status":{"state":%q,"message":{"role":"ROLE_AGENT","parts":[{"text":"no such tool"}]}},"artifacts":[{"artifactId":"a","parts":%s}]}}}`, req.ID, state, parts)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedURL is an http URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String() + "/a2a"
}

// TestInvokeA2A: invoke of agents whose cards list A2A endpoints only:
// the endpoints are tried by priority past an unreachable one; failures
// come back as the node's errors.
func TestInvokeA2A(t *testing.T) {
	n := startNode(t, testNode{name: "caller", a2aAllowPrivate: true, noAPI: true})
	ctx := context.Background()
	live, dead := fakeA2A(t), closedURL(t)

	// The dead endpoint has the better priority: the call moves on to the live one.
	id := importA2A(t, n, a2aCard(t, 0x51, `[{"protocol": "jsonrpc", "uri": "`+live+`", "priority": 2}, {"protocol": "a2a", "uri": "`+dead+`", "priority": 1}]`))
	res, err := n.Invoke(ctx, id, "upper", []byte(`{"text":"hi"}`))
	if err != nil || string(res.Body) != `{"text":"hi"}` {
		t.Fatalf("Invoke: %v %v", res, err)
	}
	var chunks []string
	err = n.InvokeStream(ctx, id, "upper", []byte(`{"text":"streamed"}`), func(c json.RawMessage) error {
		chunks = append(chunks, string(c))
		return nil
	})
	if err != nil || strings.Join(chunks, "|") != `{"text":"streamed"}` {
		t.Fatalf("InvokeStream (a server that answers a stream request with one reply): %q %v", chunks, err)
	}
	_, err = n.Invoke(ctx, id, "fail", []byte(`{}`))
	if e := aitpError(err); e.Status != aitp.StatusError || !strings.Contains(e.Message, "failed: no such tool") {
		t.Fatalf("failed task: %v", err)
	}

	// Only unreachable endpoints: the "not reachable" class, never AITP.
	id = importA2A(t, n, a2aCard(t, 0x52, `[{"protocol": "http+json", "uri": "`+dead+`"}, {"protocol": "a2a", "uri": "http://169.254.169.254/a2a"}]`))
	_, err = n.Invoke(ctx, id, "upper", []byte(`{}`))
	if !errors.Is(err, node.ErrUnreachable) || !strings.Contains(err.Error(), "is not reachable") {
		t.Fatalf("unreachable endpoints: %v", err)
	}
}

// TestInvokeA2APrivateRefused: by default a node does not call A2A
// endpoints on loopback addresses.
func TestInvokeA2APrivateRefused(t *testing.T) {
	n := startNode(t, testNode{name: "caller", noAPI: true})
	id := importA2A(t, n, a2aCard(t, 0x53, `[{"protocol": "a2a", "uri": "`+fakeA2A(t)+`"}]`))
	_, err := n.Invoke(context.Background(), id, "upper", []byte(`{}`))
	if !errors.Is(err, node.ErrUnreachable) || !strings.Contains(err.Error(), "is not reachable (endpoint address refused: 127.0.0.1 is a loopback or private address") {
		t.Fatalf("loopback endpoint: %v", err)
	}
}
