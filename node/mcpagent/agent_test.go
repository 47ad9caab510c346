package mcpagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/mcpagent"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// toolsSeen records what OnToolsChanged received.
type toolsSeen struct {
	mu    sync.Mutex
	lists [][]adp.Tool
}

func (s *toolsSeen) note(tools []adp.Tool, _ json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists = append(s.lists, tools)
}

func (s *toolsSeen) last() []adp.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lists) == 0 {
		return nil
	}
	return s.lists[len(s.lists)-1]
}

// startInMemory starts an agent in front of a fresh mcptest server over
// the SDK's in-memory transport.
func startInMemory(t *testing.T) (*mcpagent.Agent, *toolsSeen) {
	t.Helper()
	seen := &toolsSeen{}
	a, err := mcpagent.New(mcpagent.Transport(mcptest.InMemory(mcptest.NewServer())), mcpagent.OnToolsChanged(seen.note))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return a, seen
}

func names(tools []adp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestToolsBecomeADPToolsWithSchemas(t *testing.T) {
	a, seen := startInMemory(t)
	if got, want := names(seen.last()), []string{"count", "echo", "fail", "grow"}; !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	i := slices.IndexFunc(a.Tools(), func(t adp.Tool) bool { return t.Name == "echo" })
	echo := a.Tools()[i]
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(echo.InputSchema, &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil || !slices.Contains(schema.Required, "text") {
		t.Fatalf("echo input schema %s (%v)", echo.InputSchema, err)
	}
	if echo.Description != "Echo the text back" || echo.OutputSchema == nil {
		t.Fatalf("echo tool %+v", echo)
	}
	st := a.Status()
	if st.State != mcpagent.StateRunning || st.Tools != 4 || st.Server != mcptest.Name+"/"+mcptest.Version || st.Protocol == "" || st.Transport != "custom" {
		t.Fatalf("status %+v", st)
	}
}

func TestCallRoundTrip(t *testing.T) {
	a, _ := startInMemory(t)
	w := &aitptest.Chunks{}
	err := a.Call(context.Background(), w, &aitp.Request{Method: "echo", Body: []byte(`{"text":"héllo"}`)}, "agent://caller")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ Type, Text string } `json:"content"`
		Struct  struct{ Text string }         `json:"structuredContent"`
	}
	if len(w.Got()) != 1 || json.Unmarshal([]byte(w.Got()[0]), &res) != nil || len(res.Content) != 1 || res.Content[0].Text != "héllo" || res.Struct.Text != "héllo" {
		t.Fatalf("reply %q", w.Got())
	}
}

func TestCallStatuses(t *testing.T) {
	a, _ := startInMemory(t)
	for _, tc := range []struct {
		name, method, body string
		status             aitp.Status
		code, msg          string
	}{
		{"tool error", "fail", `{}`, aitp.StatusError, mcpagent.CodeToolError, "boom"},
		{"wrong type", "echo", `{"text":5}`, aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "text"},
		{"missing argument", "echo", `{}`, aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "text"},
		{"not an object", "echo", `[1]`, aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "JSON object"},
		{"unknown tool", "nope", `{}`, aitp.StatusNotFound, aitp.CodeNotFound, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := a.Call(context.Background(), &aitptest.Chunks{}, &aitp.Request{Method: tc.method, Body: []byte(tc.body)}, "")
			var e *aitp.Error
			if !errors.As(err, &e) || e.Status != tc.status || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("got %v (%#v), want %v %s containing %q", err, e, tc.status, tc.code, tc.msg)
			}
		})
	}
}

func TestProgressStreamsChunks(t *testing.T) {
	a, _ := startInMemory(t)
	w := &aitptest.Chunks{}
	if err := a.Call(context.Background(), w, &aitp.Request{Method: "count", Body: []byte(`{"n":3}`), StreamReply: true}, ""); err != nil {
		t.Fatal(err)
	}
	checkProgress(t, w.Got(), 3)
	// Without a streamed reply: the result alone.
	w = &aitptest.Chunks{}
	if err := a.Call(context.Background(), w, &aitp.Request{Method: "count", Body: []byte(`{"n":3}`)}, ""); err != nil || len(w.Got()) != 1 {
		t.Fatalf("unstreamed: %v %q", err, w.Got())
	}
}

// checkProgress checks streamed chunks: progress notifications in order
// (at least one: the SDK may deliver the last ones after the result, see
// drainProgress), then the result of count n.
func checkProgress(t *testing.T, got []string, n int) {
	t.Helper()
	if len(got) < 2 || len(got) > n+1 {
		t.Fatalf("%d chunks, want 1 to %d progress and the result: %q", len(got), n, got)
	}
	for i, c := range got[:len(got)-1] {
		var p struct {
			Progress, Total float64
			Message         string
		}
		if err := json.Unmarshal([]byte(c), &p); err != nil || p.Progress != float64(i+1) || p.Total != float64(n) || p.Message == "" {
			t.Fatalf("chunk %d: %s (%v)", i, c, err)
		}
	}
	if last := got[len(got)-1]; !strings.Contains(last, fmt.Sprintf("counted %d", n)) {
		t.Fatalf("last chunk %s", last)
	}
}

func TestListChangedRelists(t *testing.T) {
	a, seen := startInMemory(t)
	if err := a.Call(context.Background(), &aitptest.Chunks{}, &aitp.Request{Method: "grow"}, ""); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "the tool grown is listed", func() bool {
		return slices.Contains(names(seen.last()), "grown")
	})
	w := &aitptest.Chunks{}
	if err := a.Call(context.Background(), w, &aitp.Request{Method: "grown"}, ""); err != nil || !strings.Contains(strings.Join(w.Got(), ""), "grown") {
		t.Fatalf("call grown: %v %q", err, w.Got())
	}
}

func TestNewNeedsOneServer(t *testing.T) {
	for _, opts := range [][]mcpagent.Option{
		nil,
		{mcpagent.Command("x"), mcpagent.URL("http://127.0.0.1:1/mcp")},
	} {
		if _, err := mcpagent.New(opts...); !errors.Is(err, mcpagent.ErrNoServer) {
			t.Errorf("New(%d options): %v, want ErrNoServer", len(opts), err)
		}
	}
}

func TestStartFailsClearly(t *testing.T) {
	a, err := mcpagent.New(mcpagent.Command("/nonexistent/mcp-server"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Fatalf("Start: %v", err)
	}
	err = a.Call(context.Background(), &aitptest.Chunks{}, &aitp.Request{Method: "echo"}, "")
	if st, ok := aitp.StatusOf(err); !ok || st != aitp.StatusBusy {
		t.Fatalf("call with no server: %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"npx -y @modelcontextprotocol/server-everything", []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{`  a   'b c'  "d \"e\" \x" f\ g ''`, []string{"a", "b c", `d "e" \x`, "f g", ""}},
		{`env K=1 '/tmp/my dir/bin'`, []string{"env", "K=1", "/tmp/my dir/bin"}},
	} {
		got, err := mcpagent.SplitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "   ", `a 'b`, `a "b`, `a\`} {
		if _, err := mcpagent.SplitCommand(bad); !errors.Is(err, mcpagent.ErrBadCommand) {
			t.Errorf("SplitCommand(%q): %v, want ErrBadCommand", bad, err)
		}
	}
}
