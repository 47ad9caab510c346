package a2aclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
)

// restServer is a fake A2A server of the HTTP+JSON binding: handler gets
// the request path and body.
func restServer(t *testing.T, handler func(w http.ResponseWriter, path string, body map[string]any)) (string, func() []string) {
	t.Helper()
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body %q: %v", raw, err)
		}
		mu.Lock()
		paths = append(paths, r.URL.Path+" "+r.Header.Get(a2awire.VersionHeader))
		mu.Unlock()
		handler(w, r.URL.Path, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/rest", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// TestREST: the HTTP+JSON binding: paths, body without a JSON-RPC
// envelope, replies and events without one, errors in the google.rpc.Status
// shape, and the 0.3 path after a 404.
func TestREST(t *testing.T) {
	rest := a2aclient.Endpoint{Binding: a2awire.BindingREST}
	ctx := context.Background()

	url, paths := restServer(t, func(w http.ResponseWriter, path string, body map[string]any) {
		m, _ := json.Marshal(body["message"])
		if _, ok := body["jsonrpc"]; ok || !strings.Contains(string(m), `"tool":"upper"`) {
			writeJSON(w, 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad body"}}`)
			return
		}
		switch path {
		case "/rest/message:send":
			writeJSON(w, 200, `{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"parts":[{"text":"UP"}]}]}}`)
		case "/rest/message:stream":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"artifactUpdate\":{\"artifact\":{\"parts\":[{\"text\":\"A\"}]}}}\n\ndata: {\"statusUpdate\":{\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}\n\n")
		default:
			http.NotFound(w, nil)
		}
	})
	rest.URL = url
	got, err := newClient().Send(ctx, rest, "upper", json.RawMessage(`{"text":"up"}`))
	if err != nil || string(got) != `"UP"` {
		t.Fatalf("Send: %s %v", got, err)
	}
	chunks, err := collectEP(newClient(), rest)
	if err != nil || chunks != `"A"` {
		t.Fatalf("Stream: %s %v", chunks, err)
	}
	if p := paths(); strings.Join(p, ",") != "/rest/message:send 1.0,/rest/message:stream 1.0" {
		t.Fatalf("paths %v", p)
	}

	// Errors: the reason's JSON-RPC code, else the HTTP status's.
	for _, tc := range []struct {
		status int
		body   string
		code   int
	}{
		{400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad text","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_PARAMS"}]}}`, a2awire.CodeInvalidParams},
		{400, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"no","details":[{"reason":"UNSUPPORTED_OPERATION"}]}}`, a2awire.CodeUnsupportedOperation},
		{500, `{"error":{"code":500,"status":"INTERNAL","message":"boom"}}`, a2awire.CodeInternalError},
	} {
		url, _ := restServer(t, func(w http.ResponseWriter, _ string, _ map[string]any) { writeJSON(w, tc.status, tc.body) })
		_, err := newClient().Send(ctx, a2aclient.Endpoint{URL: url, Binding: a2awire.BindingREST}, "upper", nil)
		var re *a2aclient.RemoteError
		if !errors.As(err, &re) || re.Code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.body, err, tc.code)
		}
	}
	url, _ = restServer(t, func(w http.ResponseWriter, _ string, _ map[string]any) { writeJSON(w, 200, `{"task":`) })
	if _, err := newClient().Send(ctx, a2aclient.Endpoint{URL: url, Binding: a2awire.BindingREST}, "upper", nil); !errors.Is(err, a2aclient.ErrBadReply) {
		t.Errorf("truncated reply: %v", err)
	}

	// A 0.3 server: 404 on the 1.0 path, then /v1/message:send.
	url, paths = restServer(t, func(w http.ResponseWriter, path string, body map[string]any) {
		if path != "/rest/v1/message:send" {
			http.NotFound(w, nil)
			return
		}
		writeJSON(w, 200, `{"kind":"message","role":"agent","parts":[{"kind":"text","text":"old"}]}`)
	})
	got, err = newClient().Send(ctx, a2aclient.Endpoint{URL: url, Binding: a2awire.BindingREST}, "upper", nil)
	if err != nil || string(got) != `"old"` || strings.Join(paths(), ",") != "/rest/message:send 1.0,/rest/v1/message:send 0.3" {
		t.Fatalf("0.3 fallback: %s %v %v", got, err, paths())
	}
}

func collectEP(c *a2aclient.Client, ep a2aclient.Endpoint) (string, error) {
	var chunks []string
	err := c.Stream(context.Background(), ep, "upper", nil, func(ch json.RawMessage) error {
		chunks = append(chunks, string(ch))
		return nil
	})
	return strings.Join(chunks, "|"), err
}
