package jsonerr_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/internal/jsonerr"
)

type inner struct {
	Text string `json:"text"`
}

type request struct {
	Agent   string   `json:"agent"`
	Timeout int      `json:"timeout_ms"`
	Inner   inner    `json:"inner"`
	Tags    []string `json:"tags"`
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		in, path, msg string
	}{
		{`{"inner":{"text":5}}`, "/inner/text", "want a string, got a number"},
		{`[1,2]`, "", "the body must be a JSON object, not an array"},
		{`{"timeout_ms":"x"}`, "/timeout_ms", "want an integer, got a string"},
		{`{"tags":{}}`, "/tags", "want an array, got a JSON object"},
		{`{"agent":`, "", "not valid JSON"},
		{`{"agent" 1}`, "", "syntax error at byte"},
		{`{"nope":1}`, "/nope", "unknown field"},
	}
	for _, c := range cases {
		var r request
		dec := json.NewDecoder(strings.NewReader(c.in))
		dec.DisallowUnknownFields()
		err := dec.Decode(&r)
		if err == nil {
			t.Fatalf("%s: decoded", c.in)
		}
		path, msg := jsonerr.Describe(err)
		if path != c.path || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %q %q, want %q containing %q", c.in, path, msg, c.path, c.msg)
		}
		for _, bad := range []string{"jsonerr_test.", "struct", "Go ", "request"} {
			if strings.Contains(msg, bad) {
				t.Errorf("%s: message %q names %q", c.in, msg, bad)
			}
		}
	}
}
