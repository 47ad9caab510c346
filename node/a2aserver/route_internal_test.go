package a2aserver

import (
	"encoding/json"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/a2awire"
)

func TestTextProperty(t *testing.T) {
	cases := []struct {
		schema string
		prop   string
		ok     bool
	}{
		{``, "text", true},
		{`{"type":"object"}`, "text", true},
		{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, "text", true},
		{`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}`, "q", true},
		{`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, "", false},
		{`{"type":"object","properties":{"q":{"type":"string"},"r":{"type":"string"}},"required":["q","r"]}`, "", false},
		{`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`, "q", true},
		{`{"type":"object","properties":{"q":{"type":"string"},"r":{"type":"string"}}}`, "", false},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, "", false},
		{`{"type":"array"}`, "", false},
		{`not json`, "", false},
	}
	for _, tc := range cases {
		prop, ok := textProperty(json.RawMessage(tc.schema))
		if prop != tc.prop || ok != tc.ok {
			t.Errorf("textProperty(%s) = %q, %v; want %q, %v", tc.schema, prop, ok, tc.prop, tc.ok)
		}
	}
}

func TestRoute(t *testing.T) {
	text := func(s string) part { return textPart(s) }
	data := func(s string) part { return part{data: json.RawMessage(s)} }
	one := &adp.Card{Tools: []adp.Tool{{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}}
	two := &adp.Card{Tools: []adp.Tool{{Name: "a"}, {Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	cases := []struct {
		name    string
		card    *adp.Card
		parts   []part
		msgMeta string
		reqMeta string
		tool    string
		args    string
		errPath string
	}{
		{"single tool, text", one, []part{text("cats"), text("dogs")}, ``, ``, "search", `{"query":"cats\ndogs"}`, ""},
		{"single tool, data", one, []part{data(`{"query":"x"}`)}, ``, ``, "search", `{"query":"x"}`, ""},
		{"data part names the tool", two, []part{text("ignored"), data(`{"tool":"b","arguments":{"k":1}}`)}, ``, ``, "b", `{"k":1}`, ""},
		{"data part wins over skillId", two, []part{data(`{"tool":"b"}`)}, `{"skillId":"a"}`, ``, "b", `{}`, ""},
		{"message skillId before request skillId", two, []part{text("t")}, `{"skillId":"a"}`, `{"skillId":"b"}`, "a", `{"text":"t"}`, ""},
		{"request skillId", two, []part{data(`{"x":true}`)}, ``, `{"skillId":"b"}`, "b", `{"x":true}`, ""},
		{"two tools, none named", two, []part{text("t")}, ``, ``, "", "", "/params/message"},
		{"data not an object", two, []part{data(`[1]`)}, `{"skillId":"a"}`, ``, "", "", "/params/message/parts/0/data"},
	}
	for _, tc := range cases {
		m := &message{parts: tc.parts}
		if tc.msgMeta != "" {
			m.metadata = json.RawMessage(tc.msgMeta)
		}
		var reqMeta json.RawMessage
		if tc.reqMeta != "" {
			reqMeta = json.RawMessage(tc.reqMeta)
		}
		c, err := route(tc.card, m, reqMeta)
		switch {
		case tc.errPath != "":
			if err == nil || err.Path != tc.errPath || err.Code != a2awire.CodeInvalidParams {
				t.Errorf("%s: got %+v, %v; want an error at %s", tc.name, c, err, tc.errPath)
			}
		case err != nil || c.tool != tc.tool || string(c.args) != tc.args:
			t.Errorf("%s: got %q %s, %v; want %q %s", tc.name, c.tool, c.args, err, tc.tool, tc.args)
		}
	}
}
