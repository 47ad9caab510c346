package a2aclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/a2awire"
)

// rpcRequest is what the fake server reads of a request.
type rpcRequest struct {
	Method  string `json:"method"`
	ID      string `json:"id"`
	Version string `json:"-"`
	Params  struct {
		Message map[string]any `json:"message"`
	} `json:"params"`
}

// fakeServer runs handler for every JSON-RPC request and records them.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []rpcRequest
}

func newFake(t *testing.T, handler func(w http.ResponseWriter, r rpcRequest)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req rpcRequest
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body %q: %v", body, err)
		}
		req.Version = r.Header.Get(a2awire.VersionHeader)
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		handler(w, req)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []rpcRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rpcRequest(nil), f.reqs...)
}

// reply writes body as JSON with every "ID" replaced by the request id.
func reply(body string) func(http.ResponseWriter, rpcRequest) {
	return func(w http.ResponseWriter, r rpcRequest) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, strings.ReplaceAll(body, `"ID"`, `"`+r.ID+`"`))
	}
}

// sse writes each event's data (with "ID" replaced) as a server-sent event.
func sse(events ...string) func(http.ResponseWriter, rpcRequest) {
	return func(w http.ResponseWriter, r rpcRequest) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, "data: "+strings.ReplaceAll(e, `"ID"`, `"`+r.ID+`"`)+"\n\n")
		}
	}
}

func newClient(opts ...a2aclient.Option) *a2aclient.Client {
	c := a2aclient.New(append([]a2aclient.Option{a2aclient.WithPrivateAddresses(true)}, opts...)...)
	return c
}

const completedTask = `{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"HELLO"}]}]}}}`

// TestSend: the request's shape (method, version header, data part, skill
// id) and the mapping of a completed task's artifact.
func TestSend(t *testing.T) {
	f := newFake(t, reply(completedTask))
	c := newClient()
	defer c.Close()
	got, err := c.Send(context.Background(), a2aclient.Endpoint{URL: f.URL}, "upper", json.RawMessage(`{"text":"hello"}`))
	if err != nil || string(got) != `"HELLO"` {
		t.Fatalf("Send: %s %v", got, err)
	}
	reqs := f.requests()
	if len(reqs) != 1 || reqs[0].Method != "SendMessage" || reqs[0].Version != "1.0" {
		t.Fatalf("requests: %+v", reqs)
	}
	m, _ := json.Marshal(reqs[0].Params.Message)
	for _, want := range []string{`"role":"ROLE_USER"`, `"data":{"arguments":{"text":"hello"},"tool":"upper"}`, `"metadata":{"skillId":"upper"}`, `"messageId":`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("message %s lacks %s", m, want)
		}
	}
}

// TestSendReplies maps the replies a server may give to values.
func TestSendReplies(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"message with a data part", `{"jsonrpc":"2.0","id":"ID","result":{"message":{"role":"ROLE_AGENT","messageId":"m","parts":[{"data":{"n":1}}]}}}`, `{"n":1}`},
		{"several parts", `{"jsonrpc":"2.0","id":"ID","result":{"message":{"role":"ROLE_AGENT","messageId":"m","parts":[{"text":"a"},{"url":"https://x/y","mediaType":"image/png"}]}}}`, `["a",{"mediaType":"image/png","url":"https://x/y"}]`},
		{"completed task without artifacts", `{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"text":"done"}]}}}}}`, `"done"`},
		{"completed task, nothing", `{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}`, `null`},
		{"0.3 task", `{"jsonrpc":"2.0","id":"ID","result":{"kind":"task","id":"t","status":{"state":"completed"},"artifacts":[{"parts":[{"kind":"file","file":{"uri":"https://x","mimeType":"text/plain"}}]}]}}`, `{"mediaType":"text/plain","url":"https://x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, reply(tc.body))
			got, err := newClient().Send(context.Background(), a2aclient.Endpoint{URL: f.URL}, "x", nil)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s %v, want %s", got, err, tc.want)
			}
		})
	}
}

// TestSendHostile: every malformed, oversized or failing reply is a clear
// error of the right class, never a value.
func TestSendHostile(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":"ID","result":{"message":{"parts":[{"text":"` + strings.Repeat("x", 5000) + `"}]}}}`
	for _, tc := range []struct {
		name    string
		handler func(http.ResponseWriter, rpcRequest)
		is      error  // errors.Is target, or nil
		remote  int    // *RemoteError code, or 0
		state   string // *TaskError state, or ""
		text    string // in the message
	}{
		{name: "huge body", handler: reply(huge), is: a2aclient.ErrTooLarge, text: "too large"},
		{name: "not JSON", handler: reply(`<html>hello</html>`), is: a2aclient.ErrBadReply},
		{name: "JSON array", handler: reply(`[1,2]`), is: a2aclient.ErrBadReply},
		{name: "trailing data", handler: reply(completedTask + `{}`), is: a2aclient.ErrBadReply, text: "after"},
		{name: "stray brace after the reply", handler: reply(completedTask + ` }`), is: a2aclient.ErrBadReply, text: "after"},
		{name: "wrong jsonrpc", handler: reply(`{"jsonrpc":"1.0","id":"ID","result":{}}`), is: a2aclient.ErrBadReply},
		{name: "wrong id", handler: reply(`{"jsonrpc":"2.0","id":"other","result":{"message":{"parts":[]}}}`), is: a2aclient.ErrBadReply, text: "another request id"},
		{name: "numeric id", handler: reply(`{"jsonrpc":"2.0","id":1,"result":{"message":{"parts":[]}}}`), is: a2aclient.ErrBadReply},
		{name: "no result", handler: reply(`{"jsonrpc":"2.0","id":"ID"}`), is: a2aclient.ErrBadReply},
		{name: "result and error", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"message":{}},"error":{"code":1,"message":"x"}}`), is: a2aclient.ErrBadReply},
		{name: "error object", handler: reply(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32602,"message":"bad arguments: text"}}`), remote: -32602, text: "bad arguments: text"},
		{name: "error with null id", handler: reply(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`), remote: -32700},
		{name: "error for another id", handler: reply(`{"jsonrpc":"2.0","id":"zz","error":{"code":-32603,"message":"x"}}`), is: a2aclient.ErrBadReply},
		{name: "error without code", handler: reply(`{"jsonrpc":"2.0","id":"ID","error":{"message":"x"}}`), is: a2aclient.ErrBadReply},
		{name: "huge error text", handler: reply(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32603,"message":"` + strings.Repeat("é", 1000) + `"}}`), remote: -32603},
		{name: "result not an object", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":"hi"}`), is: a2aclient.ErrBadReply},
		{name: "result of no kind", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"foo":{}}}`), is: a2aclient.ErrBadReply, text: "neither"},
		{name: "task of wrong shape", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"status":"done"}}}`), is: a2aclient.ErrBadReply, text: "shape"},
		{name: "task without status", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t"}}}`), is: a2aclient.ErrBadReply},
		{name: "unknown state", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"status":{"state":"TASK_STATE_DANCING"}}}}`), is: a2aclient.ErrBadReply, text: "unknown task state"},
		{name: "empty part", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"message":{"parts":[{}]}}}`), is: a2aclient.ErrBadReply},
		{name: "status update as result", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"statusUpdate":{"status":{"state":"TASK_STATE_COMPLETED"}}}}`), is: a2aclient.ErrBadReply},
		{name: "failed task", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_FAILED","message":{"role":"ROLE_AGENT","parts":[{"text":"disk full"}]}}}}}`), state: a2awire.StateFailed, text: "ended failed: disk full"},
		{name: "rejected 0.3 task", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"kind":"task","id":"t","status":{"state":"rejected"}}}`), state: a2awire.StateRejected, text: "ended rejected"},
		{name: "input required", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}}`), state: a2awire.StateInputRequired, text: "input required"},
		{name: "unfinished task", handler: reply(`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}}}}`), state: a2awire.StateWorking},
		{name: "HTTP 500 page", handler: func(w http.ResponseWriter, _ rpcRequest) { http.Error(w, "oops", 500) }, is: a2aclient.ErrBadReply, text: "HTTP 500"},
		{name: "HTTP 503", handler: func(w http.ResponseWriter, _ rpcRequest) { http.Error(w, "down", 503) }, is: a2aclient.ErrUnreachable},
		{name: "HTTP 400 with an error object", handler: func(w http.ResponseWriter, r rpcRequest) {
			w.WriteHeader(400)
			reply(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32600,"message":"no"}}`)(w, r)
		}, remote: -32600},
		{name: "redirect", handler: func(w http.ResponseWriter, _ rpcRequest) {
			w.Header().Set("Location", "http://169.254.169.254/")
			w.WriteHeader(307)
		}, is: a2aclient.ErrBadReply, text: "redirected"},
		{name: "connection cut", handler: func(w http.ResponseWriter, _ rpcRequest) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, is: a2aclient.ErrUnreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.handler)
			got, err := newClient(a2aclient.WithMaxReply(4096)).Send(context.Background(), a2aclient.Endpoint{URL: f.URL}, "x", nil)
			checkErr(t, got, err, tc.is, tc.remote, tc.state, tc.text)
		})
	}
}

func checkErr(t *testing.T, got json.RawMessage, err error, is error, remote int, state, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; got %s", got)
	}
	if is != nil && !errors.Is(err, is) {
		t.Fatalf("error %v is not %v", err, is)
	}
	var re *a2aclient.RemoteError
	if remote != 0 && (!errors.As(err, &re) || re.Code != remote || len(re.Message) > a2aclient.MaxErrorText+4) {
		t.Fatalf("error %v: want remote code %d", err, remote)
	}
	var te *a2aclient.TaskError
	if state != "" && (!errors.As(err, &te) || te.State != state) {
		t.Fatalf("error %v: want task state %s", err, state)
	}
	if !strings.Contains(err.Error(), text) {
		t.Fatalf("error %q lacks %q", err, text)
	}
	if strings.Contains(err.Error(), "*") || strings.Contains(err.Error(), "a2aclient.") {
		t.Fatalf("error %q names Go types", err)
	}
}

// TestLegacyFallback: a 0.3 server answers "method not found" to
// SendMessage; the client repeats the call as message/send in the 0.3
// shape. A card that says 0.3 skips the first attempt.
func TestLegacyFallback(t *testing.T) {
	handler := func(w http.ResponseWriter, r rpcRequest) {
		if r.Method != "message/send" {
			reply(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32601,"message":"Method not found"}}`)(w, r)
			return
		}
		reply(`{"jsonrpc":"2.0","id":"ID","result":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"old"}]}}`)(w, r)
	}
	for _, tc := range []struct {
		version string
		methods []string
	}{{"", []string{"SendMessage", "message/send"}}, {"0.3", []string{"message/send"}}} {
		f := newFake(t, handler)
		got, err := newClient().Send(context.Background(), a2aclient.Endpoint{URL: f.URL, ProtocolVersion: tc.version}, "x", json.RawMessage(`{"a":1}`))
		if err != nil || string(got) != `"old"` {
			t.Fatalf("version %q: %s %v", tc.version, got, err)
		}
		reqs := f.requests()
		var methods []string
		for _, r := range reqs {
			methods = append(methods, r.Method)
		}
		if strings.Join(methods, ",") != strings.Join(tc.methods, ",") {
			t.Fatalf("version %q: methods %v, want %v", tc.version, methods, tc.methods)
		}
		last := reqs[len(reqs)-1]
		m, _ := json.Marshal(last.Params.Message)
		if last.Version != "0.3" || !strings.Contains(string(m), `"kind":"data"`) || !strings.Contains(string(m), `"role":"user"`) {
			t.Fatalf("0.3 request: version %q message %s", last.Version, m)
		}
	}
}

// TestStream: chunks from artifact updates, in order, ending at the
// completed status; the 0.3 event shapes too.
func TestStream(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
		want   string
	}{
		{"1.0", []string{
			`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}}}`,
			`{"jsonrpc":"2.0","id":"ID","result":{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}}`,
			`{"jsonrpc":"2.0","id":"ID","result":{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"text":"one"}]}}}}`,
			`{"jsonrpc":"2.0","id":"ID","result":{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"data":{"n":2}}]}}}}`,
			`{"jsonrpc":"2.0","id":"ID","result":{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}`,
		}, `"one"|{"n":2}`},
		{"message", []string{`{"jsonrpc":"2.0","id":"ID","result":{"message":{"parts":[{"text":"hi"}]}}}`}, `"hi"`},
		{"0.3", []string{
			`{"jsonrpc":"2.0","id":"ID","result":{"kind":"artifact-update","taskId":"t","artifact":{"parts":[{"kind":"text","text":"x"}]}}}`,
			`{"jsonrpc":"2.0","id":"ID","result":{"kind":"status-update","taskId":"t","status":{"state":"completed"},"final":true}}`,
		}, `"x"`},
		{"completed task only", []string{`{"jsonrpc":"2.0","id":"ID","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"parts":[{"text":"all"}]}]}}}`}, `"all"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, sse(tc.events...))
			got, err := collect(newClient(), f.URL, "")
			if err != nil || got != tc.want {
				t.Fatalf("got %s %v, want %s", got, err, tc.want)
			}
			if r := f.requests(); r[0].Method != "SendStreamingMessage" {
				t.Fatalf("method %s", r[0].Method)
			}
		})
	}
}

func collect(c *a2aclient.Client, url, version string) (string, error) {
	var chunks []string
	err := c.Stream(context.Background(), a2aclient.Endpoint{URL: url, ProtocolVersion: version}, "x", nil, func(ch json.RawMessage) error {
		chunks = append(chunks, string(ch))
		return nil
	})
	return strings.Join(chunks, "|"), err
}

// TestStreamHostile: bad streams end with an error of the right class.
func TestStreamHostile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(http.ResponseWriter, rpcRequest)
		is      error
		state   string
		text    string
	}{
		{name: "huge event", handler: sse(`{"x":"` + strings.Repeat("y", a2aclient.MaxEvent) + `"}`), is: a2aclient.ErrTooLarge},
		{name: "stream past the reply bound", handler: sse(slicesRepeat(`{"jsonrpc":"2.0","id":"ID","result":{"artifactUpdate":{"artifact":{"parts":[{"text":"aaaaaaaa"}]}}}}`, 100)...), is: a2aclient.ErrTooLarge},
		{name: "ends early", handler: sse(`{"jsonrpc":"2.0","id":"ID","result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}}`), is: a2aclient.ErrBadReply, text: "ended before"},
		{name: "wrong id", handler: sse(`{"jsonrpc":"2.0","id":"nope","result":{"message":{"parts":[{"text":"hi"}]}}}`), is: a2aclient.ErrBadReply},
		{name: "not JSON", handler: sse(`hello`), is: a2aclient.ErrBadReply},
		{name: "artifact update without artifact", handler: sse(`{"jsonrpc":"2.0","id":"ID","result":{"artifactUpdate":{}}}`), is: a2aclient.ErrBadReply},
		{name: "failed", handler: sse(`{"jsonrpc":"2.0","id":"ID","result":{"statusUpdate":{"status":{"state":"TASK_STATE_FAILED","message":{"parts":[{"text":"boom"}]}}}}}`), state: a2awire.StateFailed, text: "boom"},
		{name: "error event", handler: sse(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32603,"message":"inner"}}`), text: "inner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.handler)
			got, err := collect(newClient(a2aclient.WithMaxReply(4096)), f.URL, "")
			checkErr(t, json.RawMessage(got), err, tc.is, 0, tc.state, tc.text)
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestStreamUnsupported: a server that cannot stream is called with
// SendMessage; its result is the one chunk.
func TestStreamUnsupported(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r rpcRequest) {
		if r.Method == "SendStreamingMessage" {
			reply(`{"jsonrpc":"2.0","id":"ID","error":{"code":-32004,"message":"streaming is not supported"}}`)(w, r)
			return
		}
		reply(completedTask)(w, r)
	})
	got, err := collect(newClient(), f.URL, "")
	if err != nil || got != `"HELLO"` {
		t.Fatalf("got %s %v", got, err)
	}
}

// TestRefusedURLs: schemes and addresses the client never calls, and
// loopback only when allowed.
func TestRefusedURLs(t *testing.T) {
	for _, tc := range []struct {
		url     string
		private bool
	}{
		{"ftp://example.com/a2a", true},
		{"file:///etc/passwd", true},
		{"http:///nohost", true},
		{"http://user:pw@example.com/", true},
		{"http://169.254.169.254/latest/meta-data", true},
		{"http://[fe80::1]/", true},
		{"http://[fd00:ec2::254]/", true},
		{"http://0.0.0.0:80/", true},
		{"http://127.0.0.1:1/", false},
		{"http://10.1.2.3/", false},
		{"http://[::1]:1/", false},
		{"http://localhost:1/", false}, // resolved, then refused when dialled
	} {
		c := a2aclient.New(a2aclient.WithPrivateAddresses(tc.private))
		_, err := c.Send(context.Background(), a2aclient.Endpoint{URL: tc.url}, "x", nil)
		if !errors.Is(err, a2aclient.ErrRefusedURL) || strings.Contains(err.Error(), "dial") || strings.Contains(err.Error(), "Post") {
			t.Errorf("%s (private %v): %v, want refused, said plainly", tc.url, tc.private, err)
		}
	}
}

// TestUnreachableAndDeadline: a closed port is ErrUnreachable; the
// caller's deadline comes back as it is.
func TestUnreachableAndDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = newClient().Send(context.Background(), a2aclient.Endpoint{URL: "http://" + addr}, "x", nil)
	if !errors.Is(err, a2aclient.ErrUnreachable) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("closed port: %v", err)
	}

	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r rpcRequest) { <-release })
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = newClient().Send(ctx, a2aclient.Endpoint{URL: f.URL}, "x", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow server: %v", err)
	}
}
