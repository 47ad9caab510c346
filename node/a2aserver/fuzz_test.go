package a2aserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/a2awire"
)

// FuzzRequest sends arbitrary bodies under each version header: the
// server never panics and answers one JSON-RPC response (or, for a
// stream, events that each are one).
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		sendBody(a2awire.MethodSendMessage, msg10),
		sendBody(a2awire.MethodSend03, msg03),
		sendBody(a2awire.MethodSendStreamingMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"reverse","arguments":{"text":"a b"}}}]}}`),
		sendBody(a2awire.MethodStream03, msg03),
		sendBody(a2awire.MethodGetTask, `{"id":"x","historyLength":2}`),
		sendBody(a2awire.MethodCancel03, `{"id":"x"}`),
		sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":"u"}]}}`),
		`[]`, `{"jsonrpc":"2.0","id":null}`, `{"id":1e999}`, "\xff",
	} {
		f.Add(seed, uint8(0))
	}
	versions := []string{"", "1.0", "0.3", "9"}
	// The fake agent's block tool waits for its context: bound it, so an
	// input that calls it costs a moment, not a hang.
	s := a2aserver.New(newFakeAgent(), a2aserver.WithCallTimeout(50*time.Millisecond))
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, body string, v uint8) {
		r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if h := versions[int(v)%len(versions)]; h != "" {
			r.Header.Set(a2awire.VersionHeader, h)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		out := w.Body.Bytes()
		if w.Header().Get("Content-Type") == "text/event-stream" {
			for _, line := range bytes.Split(out, []byte("\n")) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					checkResponse(t, data)
				}
			}
			return
		}
		checkResponse(t, out)
	})
}

func checkResponse(t *testing.T, b []byte) {
	t.Helper()
	var a struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &a); err != nil || a.JSONRPC != "2.0" || a.ID == nil || (a.Result == nil) == (a.Error == nil) {
		t.Fatalf("not one JSON-RPC response: %q (%v)", b, err)
	}
}
