package demoagent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/node/demoagent"
)

func TestCall(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		method, body string
		stream       bool
		want         []string
	}{
		{demoagent.Echo, `{"a":[1,2]}`, false, []string{`{"a":[1,2]}`}},
		{demoagent.Echo, ``, false, []string{`{}`}},
		{demoagent.WordCount, `{"text":"one two\nthree"}`, false, []string{`{"chars":13,"lines":2,"words":3}`}},
		{demoagent.WordCount, `{"text":""}`, false, []string{`{"chars":0,"lines":0,"words":0}`}},
		{demoagent.Reverse, `{"text":"ab cd"}`, false, []string{`{"text":"dc ba"}`}},
		{demoagent.Reverse, `{"text":"ab cd"}`, true, []string{`{"text":"dc"}`, `{"text":"ba"}`}},
		{demoagent.Reverse, `{"text":"żółw"}`, false, []string{`{"text":"włóż"}`}},
	} {
		w := &aitptest.Chunks{}
		if err := demoagent.Call(ctx, w, &aitp.Request{Method: tt.method, Body: []byte(tt.body), StreamReply: tt.stream}); err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.body, err)
		}
		if strings.Join(w.Got(), "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s %s (stream %v) = %q, want %q", tt.method, tt.body, tt.stream, w.Got(), tt.want)
		}
	}
}

func TestCallRefuses(t *testing.T) {
	ctx := context.Background()
	long := `{"text":"` + strings.Repeat("x", demoagent.MaxText+1) + `"}`
	for _, tt := range []struct {
		method, body string
		status       aitp.Status
		path         string
	}{
		{demoagent.WordCount, `{}`, aitp.StatusInvalidRequest, "/text"},
		{demoagent.WordCount, `{"text":7}`, aitp.StatusInvalidRequest, "/text"},
		{demoagent.Reverse, long, aitp.StatusInvalidRequest, "/text"},
		{demoagent.Echo, `{"a":`, aitp.StatusInvalidRequest, ""},
		{"nope", `{}`, aitp.StatusNotFound, ""},
	} {
		err := demoagent.Call(ctx, &aitptest.Chunks{}, &aitp.Request{Method: tt.method, Body: []byte(tt.body)})
		var e *aitp.Error
		if !errors.As(err, &e) || e.Status != tt.status || e.Path != tt.path {
			t.Errorf("%s %.40s: %v, want status %v at %q", tt.method, tt.body, err, tt.status, tt.path)
		}
	}
}

func TestTools(t *testing.T) {
	tools := demoagent.Tools()
	if len(tools) != 3 {
		t.Fatalf("%d tools", len(tools))
	}
	for _, tool := range tools {
		if !demoagent.Serves(tool.Name) || len(tool.InputSchema) == 0 || len(tool.OutputSchema) == 0 {
			t.Errorf("tool %+v", tool)
		}
	}
	if demoagent.Serves("nope") {
		t.Error("Serves(nope)")
	}
	tools[0].Name = "changed"
	*tools[0].Idempotent = false
	*tools[2].Streaming = false
	tools[1].InputSchema[0] = ' '
	again := demoagent.Tools()
	if again[0].Name == "changed" || !*again[0].Idempotent || !*again[1].Idempotent || !*again[2].Streaming || again[1].InputSchema[0] != '{' || again[2].InputSchema[0] != '{' {
		t.Error("Tools returns values shared with an earlier call")
	}
}
