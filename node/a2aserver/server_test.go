package a2aserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/a2awire"
)

var textSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)

// fakeAgent serves: echo (any object), reverse (text; one chunk per word
// when streamed), fail (an AITP error) and block (until cancelled).
type fakeAgent struct {
	mu    sync.Mutex
	calls []string // tool and arguments of each call
	tools []adp.Tool
}

func newFakeAgent() *fakeAgent {
	return &fakeAgent{tools: []adp.Tool{
		{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "reverse", InputSchema: textSchema},
		{Name: "fail"},
		{Name: "block", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`)},
	}}
}

func (a *fakeAgent) Card() *adp.Card { return &adp.Card{Name: "fake", Tools: a.tools} }

func (a *fakeAgent) CallTool(ctx context.Context, tool string, args []byte, stream bool, fn func(json.RawMessage) error) error {
	a.mu.Lock()
	a.calls = append(a.calls, tool+" "+string(args))
	a.mu.Unlock()
	switch tool {
	case "echo":
		return fn(args)
	case "reverse":
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/text", "want a text")
		}
		words := strings.Fields(in.Text)
		if !stream {
			out := make([]string, len(words))
			for i, w := range words {
				out[len(words)-1-i] = reverse(w)
			}
			b, _ := json.Marshal(strings.Join(out, " "))
			return fn(b)
		}
		for i := len(words) - 1; i >= 0; i-- {
			b, _ := json.Marshal(reverse(words[i]))
			if err := fn(b); err != nil {
				return err
			}
		}
		return nil
	case "fail":
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/x", "x is missing")
	case "block":
		<-ctx.Done()
		return ctx.Err()
	}
	return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool")
}

func (a *fakeAgent) lastCall() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.calls) == 0 {
		return ""
	}
	return a.calls[len(a.calls)-1]
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func newServer(t *testing.T, agent a2aserver.Agent, opts ...a2aserver.Option) *a2aserver.Server {
	t.Helper()
	s := a2aserver.New(agent, opts...)
	t.Cleanup(func() { s.Close() })
	return s
}

// post sends body with an A2A-Version header (none when version is "")
// and returns the status, the answered version and the body.
func post(t *testing.T, h http.Handler, version, body string) (int, string, []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if version != "" {
		r.Header.Set(a2awire.VersionHeader, version)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header().Get(a2awire.VersionHeader), w.Body.Bytes()
}

type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(t *testing.T, b []byte) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal(b, &a); err != nil || a.JSONRPC != "2.0" {
		t.Fatalf("not a JSON-RPC response: %s (%v)", b, err)
	}
	return a
}

func sendBody(method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
}

const (
	msg10 = `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello world"}],"metadata":{"skillId":"reverse"}}}`
	msg03 = `{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello world"}]},"metadata":{"skillId":"reverse"}}`
)

func TestSendMessage10(t *testing.T) {
	agent := newFakeAgent()
	s := newServer(t, agent)
	status, version, body := post(t, s, a2awire.Version10, sendBody(a2awire.MethodSendMessage, msg10))
	a := decode(t, body)
	if status != http.StatusOK || version != a2awire.Version10 || a.Error != nil || string(a.ID) != "7" {
		t.Fatalf("status %d version %q: %s", status, version, body)
	}
	var res struct {
		Task struct {
			ID        string
			ContextID string `json:"contextId"`
			Status    struct{ State string }
			Artifacts []struct {
				ArtifactID string `json:"artifactId"`
				Parts      []map[string]any
			}
			History []struct {
				Role   string
				TaskID string `json:"taskId"`
			}
		}
	}
	if err := json.Unmarshal(a.Result, &res); err != nil {
		t.Fatal(err)
	}
	tk := res.Task
	if tk.ID == "" || tk.ContextID == "" || tk.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("task %s", a.Result)
	}
	if len(tk.Artifacts) != 1 || len(tk.Artifacts[0].Parts) != 1 || tk.Artifacts[0].Parts[0]["text"] != "dlrow olleh" {
		t.Fatalf("artifacts %s", a.Result)
	}
	if len(tk.History) != 1 || tk.History[0].Role != "ROLE_USER" || tk.History[0].TaskID != tk.ID {
		t.Fatalf("history %s", a.Result)
	}
	if got := agent.lastCall(); got != `reverse {"text":"hello world"}` {
		t.Fatalf("agent called %q", got)
	}
}

func TestSendMessage03(t *testing.T) {
	s := newServer(t, newFakeAgent())
	for _, version := range []string{"", a2awire.Version03, "0.3.2"} {
		status, answered, body := post(t, s, version, sendBody(a2awire.MethodSend03, msg03))
		a := decode(t, body)
		var tk struct {
			Kind      string
			Status    struct{ State string }
			Artifacts []struct {
				Parts []map[string]any
			}
			History []struct{ Kind, Role string }
		}
		if err := json.Unmarshal(a.Result, &tk); err != nil || status != http.StatusOK || answered != a2awire.Version03 {
			t.Fatalf("version %q: status %d, answered %q: %s", version, status, answered, body)
		}
		if tk.Kind != "task" || tk.Status.State != "completed" || len(tk.Artifacts) != 1 ||
			tk.Artifacts[0].Parts[0]["kind"] != "text" || tk.Artifacts[0].Parts[0]["text"] != "dlrow olleh" ||
			len(tk.History) != 1 || tk.History[0].Kind != "message" || tk.History[0].Role != "user" {
			t.Fatalf("version %q: task %s", version, a.Result)
		}
	}
}

// events reads the data lines of an event stream.
func events(t *testing.T, body []byte) []rpcAnswer {
	t.Helper()
	var out []rpcAnswer
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, decode(t, []byte(data)))
		}
	}
	return out
}

func TestStream10(t *testing.T) {
	s := newServer(t, newFakeAgent())
	r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(sendBody(a2awire.MethodSendStreamingMessage, msg10)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(a2awire.VersionHeader, "1.0")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q: %s", ct, w.Body)
	}
	evs := events(t, w.Body.Bytes())
	var kinds []string
	var chunks []string
	for _, ev := range evs {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ev.Result, &m); err != nil || len(m) != 1 {
			t.Fatalf("event %s: want one oneof member", ev.Result)
		}
		for k, v := range m {
			var x struct {
				Status   struct{ State string }
				Artifact struct{ Parts []struct{ Text string } }
				Append   bool
			}
			json.Unmarshal(v, &x)
			switch k {
			case "task", "statusUpdate":
				kinds = append(kinds, k+":"+x.Status.State)
			case "artifactUpdate":
				kinds = append(kinds, fmt.Sprintf("%s:%v", k, x.Append))
				chunks = append(chunks, x.Artifact.Parts[0].Text)
			}
		}
	}
	want := "task:TASK_STATE_SUBMITTED statusUpdate:TASK_STATE_WORKING artifactUpdate:false artifactUpdate:true statusUpdate:TASK_STATE_COMPLETED"
	if strings.Join(kinds, " ") != want || strings.Join(chunks, " ") != "dlrow olleh" {
		t.Fatalf("events %v chunks %v, want %s", kinds, chunks, want)
	}
}

func TestStream03Final(t *testing.T) {
	s := newServer(t, newFakeAgent())
	_, _, body := post(t, s, "", sendBody(a2awire.MethodStream03, msg03))
	evs := events(t, body)
	var kinds []string
	for _, ev := range evs {
		var x struct {
			Kind   string
			Final  *bool
			Status struct{ State string }
		}
		json.Unmarshal(ev.Result, &x)
		k := x.Kind
		if x.Final != nil {
			k += fmt.Sprintf(":%s:%v", x.Status.State, *x.Final)
		}
		kinds = append(kinds, k)
	}
	want := "task status-update:working:false artifact-update artifact-update status-update:completed:true"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("events %v, want %s", kinds, want)
	}
}

func taskID(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct{ Task struct{ ID string } }
	if err := json.Unmarshal(result, &r); err != nil || r.Task.ID == "" {
		t.Fatalf("no task in %s", result)
	}
	return r.Task.ID
}

func state(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct{ Status struct{ State string } }
	json.Unmarshal(result, &r)
	return r.Status.State
}

func TestCancelTask(t *testing.T) {
	s := newServer(t, newFakeAgent())
	send := sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"block","arguments":{"a":1}}}]},"configuration":{"returnImmediately":true}}`)
	_, _, body := post(t, s, "1.0", send)
	id := taskID(t, decode(t, body).Result)
	get := sendBody(a2awire.MethodGetTask, fmt.Sprintf(`{"id":%q}`, id))
	polltest.Until(t, 5*time.Second, func() error {
		_, _, body := post(t, s, "1.0", get)
		if st := state(t, decode(t, body).Result); st != "TASK_STATE_WORKING" {
			return fmt.Errorf("state %s", st)
		}
		return nil
	})
	cancel := sendBody(a2awire.MethodCancelTask, fmt.Sprintf(`{"id":%q}`, id))
	_, _, body = post(t, s, "1.0", cancel)
	if st := state(t, decode(t, body).Result); st != "TASK_STATE_CANCELED" {
		t.Fatalf("cancel: %s", body)
	}
	_, _, body = post(t, s, "1.0", get)
	if st := state(t, decode(t, body).Result); st != "TASK_STATE_CANCELED" {
		t.Fatalf("get after cancel: %s", body)
	}
	_, _, body = post(t, s, "1.0", cancel)
	if a := decode(t, body); a.Error == nil || a.Error.Code != a2awire.CodeTaskNotCancelable {
		t.Fatalf("second cancel: %s", body)
	}
	// 0.3 names, and a task that does not exist.
	_, _, body = post(t, s, "0.3", sendBody(a2awire.MethodGet03, `{"id":"nope"}`))
	if a := decode(t, body); a.Error == nil || a.Error.Code != a2awire.CodeTaskNotFound || !strings.Contains(string(a.Error.Data), `"path":"/params/id"`) {
		t.Fatalf("tasks/get of no task: %s", body)
	}
}

func TestFailedCall(t *testing.T) {
	s := newServer(t, newFakeAgent())
	_, _, body := post(t, s, "1.0", sendBody(a2awire.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"metadata":{"skillId":"fail"}}`))
	var r struct {
		Task struct {
			Status struct {
				State   string
				Message struct {
					Role  string
					Parts []struct{ Text string }
				}
			}
		}
	}
	json.Unmarshal(decode(t, body).Result, &r)
	st := r.Task.Status
	if st.State != "TASK_STATE_FAILED" || st.Message.Role != "ROLE_AGENT" || len(st.Message.Parts) != 1 || !strings.Contains(st.Message.Parts[0].Text, "x is missing") {
		t.Fatalf("failed call: %s", body)
	}
}

func TestCloseCancelsCalls(t *testing.T) {
	agent := newFakeAgent()
	s := a2aserver.New(agent)
	done := make(chan []byte)
	go func() {
		_, _, body := post(t, s, "1.0", sendBody(a2awire.MethodSendStreamingMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"block"}}]}}`))
		done <- body
	}()
	polltest.Until(t, 5*time.Second, func() error {
		if c := agent.lastCall(); !strings.HasPrefix(c, "block") {
			return fmt.Errorf("last call %q", c)
		}
		return nil
	})
	s.Close()
	select {
	case body := <-done:
		evs := events(t, body)
		if len(evs) == 0 || !strings.Contains(string(evs[len(evs)-1].Result), "TASK_STATE_CANCELED") {
			t.Fatalf("stream after Close: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end at Close")
	}
	s.Close() // idempotent
}
