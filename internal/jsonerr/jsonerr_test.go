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

func TestAtEnd(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":1}`:        true,
		"{\"a\":1} \n\t": true,
		`{"a":1} ]`:      false,
		`{"a":1}}`:       false,
		`{"a":1} {}`:     false,
		`{"a":1} 2`:      false,
		`{"a":1} x`:      false,
	} {
		dec := json.NewDecoder(strings.NewReader(body))
		var v map[string]int
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if got := jsonerr.AtEnd(dec); got != want {
			t.Errorf("AtEnd after %q = %v, want %v", body, got, want)
		}
	}
}
