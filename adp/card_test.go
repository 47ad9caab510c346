package adp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/libp2p/go-libp2p/core/peer"
)

func fullCardFor(t *testing.T, b byte) []byte {
	t.Helper()
	sk := fixedKey(t, b)
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	did, err := adp.DIDKey(sk.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(fullCard, `"ID"`, `"`+adp.AgentID(p)+`"`)
	s = strings.ReplaceAll(s, `"DID"`, `"`+did+`"`)
	return []byte(s)
}

// canon decodes JSON into a generic value for semantic comparison.
func canon(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestParseCardKeepsEverything(t *testing.T) {
	in := fullCardFor(t, 1)
	c, err := adp.ParseCard(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Raw(), in) {
		t.Fatal("Raw is not the input")
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if c.Name != "translator-zh-en" || c.Version != "1.2.0" || c.Status != "active" || *c.Seq != 7 {
		t.Fatalf("top-level fields: %+v", c)
	}
	if len(c.Tools) != 1 || c.Tools[0].Name != "translate" || *c.Tools[0].Idempotent != true || *c.Tools[0].Streaming != false {
		t.Fatalf("tools: %+v", c.Tools)
	}
	if c.Endpoints[1].Priority == nil || *c.Endpoints[1].Priority != 10 || c.Endpoints[2].Protocol != "carrier-pigeon/2" {
		t.Fatalf("endpoints: %+v", c.Endpoints)
	}
	if *c.Constraints.MaxInputTokens != 100000 || *c.Metadata.TTL != 3600 {
		t.Fatalf("constraints/metadata: %+v %+v", c.Constraints, c.Metadata)
	}
	out, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(canon(t, in), canon(t, out)) {
		t.Fatalf("round trip changed the card:\n in: %s\nout: %s", in, out)
	}
	// A second round trip is byte-stable.
	c2, err := adp.ParseCard(out)
	if err != nil {
		t.Fatal(err)
	}
	out2, err := c2.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out2) {
		t.Fatalf("encoding not stable:\n%s\n%s", out, out2)
	}
	// json.Marshal / json.Unmarshal go through the same code.
	var c3 adp.Card
	if err := json.Unmarshal(in, &c3); err != nil {
		t.Fatal(err)
	}
	out3, err := json.Marshal(&c3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, out3) {
		t.Fatalf("json.Marshal differs:\n%s\n%s", out, out3)
	}
}

func TestParseCardAbsentVersusEmpty(t *testing.T) {
	for _, tc := range []struct {
		in         string
		tools, eps string // "nil", "empty", "some"
		revocation bool
	}{
		{`{"id":"x","name":"n"}`, "nil", "nil", false},
		{`{"id":"x","name":"n","tools":[],"endpoints":[]}`, "empty", "empty", true},
		{`{"id":"x","name":"n","tools":[]}`, "empty", "nil", false},
		{`{"id":"x","name":"n","endpoints":[]}`, "nil", "empty", false},
		{`{"id":"x","name":"n","tools":[{"name":"a"}],"endpoints":[]}`, "some", "empty", false},
	} {
		c, err := adp.ParseCard([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		kind := func(n int, isNil bool) string {
			switch {
			case isNil:
				return "nil"
			case n == 0:
				return "empty"
			}
			return "some"
		}
		if got := kind(len(c.Tools), c.Tools == nil); got != tc.tools {
			t.Errorf("%s: tools %s, want %s", tc.in, got, tc.tools)
		}
		if got := kind(len(c.Endpoints), c.Endpoints == nil); got != tc.eps {
			t.Errorf("%s: endpoints %s, want %s", tc.in, got, tc.eps)
		}
		if c.IsRevocation() != tc.revocation {
			t.Errorf("%s: IsRevocation %v", tc.in, !tc.revocation)
		}
		out, _ := c.MarshalJSON()
		if !reflect.DeepEqual(canon(t, []byte(tc.in)), canon(t, out)) {
			t.Errorf("round trip %s -> %s", tc.in, out)
		}
	}
}

func TestParseCardRejects(t *testing.T) {
	deep := strings.Repeat(`{"a":`, adp.MaxDepth+1) + `1` + strings.Repeat(`}`, adp.MaxDepth+1)
	okDepth := `{"id":"x","x":` + strings.Repeat(`[`, adp.MaxDepth-1) + strings.Repeat(`]`, adp.MaxDepth-1) + `}`
	big := `{"id":"x","name":"` + strings.Repeat("a", adp.MaxCardSize) + `"}`
	for _, tc := range []struct {
		name string
		in   string
		want error
		path string
	}{
		{"too large", big, adp.ErrTooLarge, ""},
		{"too deep", deep, adp.ErrTooDeep, ""},
		{"not json", `{"id":`, adp.ErrMalformed, ""},
		{"not object", `["id"]`, adp.ErrMalformed, ""},
		{"trailing", `{"id":"x"} {}`, adp.ErrMalformed, ""},
		{"bad utf8", "{\"id\":\"\xff\"}", adp.ErrMalformed, ""},
		{"duplicate top key", `{"id":"a","id":"b"}`, adp.ErrMalformed, ""},
		{"duplicate escaped key", `{"id":"a","\u0069d":"b"}`, adp.ErrMalformed, ""},
		{"duplicate nested key", `{"tools":[{"name":"a","name":"b"}]}`, adp.ErrMalformed, ""},
		{"duplicate in extension", `{"extensions":{"x":{"k":1,"k":2}}}`, adp.ErrMalformed, ""},
		{"id type", `{"id":1}`, adp.ErrInvalid, "/id"},
		{"null name", `{"name":null}`, adp.ErrInvalid, "/name"},
		{"skills type", `{"skills":"nlp"}`, adp.ErrInvalid, "/skills"},
		{"skill elem type", `{"skills":["a",2]}`, adp.ErrInvalid, "/skills/1"},
		{"tools type", `{"tools":{}}`, adp.ErrInvalid, "/tools"},
		{"tool type", `{"tools":["x"]}`, adp.ErrInvalid, "/tools/0"},
		{"tool name type", `{"tools":[{"name":5}]}`, adp.ErrInvalid, "/tools/0/name"},
		{"schema type", `{"tools":[{"name":"a","input_schema":"s"}]}`, adp.ErrInvalid, "/tools/0/input_schema"},
		{"streaming type", `{"tools":[{"name":"a","streaming":"yes"}]}`, adp.ErrInvalid, "/tools/0/streaming"},
		{"priority float", `{"endpoints":[{"protocol":"a","uri":"b","priority":1.5}]}`, adp.ErrInvalid, "/endpoints/0/priority"},
		{"methods type", `{"endpoints":[{"protocol":"a","uri":"b","methods":[1]}]}`, adp.ErrInvalid, "/endpoints/0/methods/0"},
		{"constraints type", `{"constraints":[]}`, adp.ErrInvalid, "/constraints"},
		{"negative tasks", `{"constraints":{"max_concurrent_tasks":-1}}`, adp.ErrInvalid, "/constraints/max_concurrent_tasks"},
		{"metadata ttl type", `{"metadata":{"ttl":"60"}}`, adp.ErrInvalid, "/metadata/ttl"},
		{"extensions type", `{"extensions":[]}`, adp.ErrInvalid, "/extensions"},
		{"examples type", `{"examples":[{"text":["a"]}]}`, adp.ErrInvalid, "/examples/0/text"},
		{"seq negative", `{"seq":-1}`, adp.ErrInvalid, "/seq"},
		{"seq exponent", `{"seq":1e3}`, adp.ErrInvalid, "/seq"},
		{"seq past 2^53", `{"seq":9007199254740992}`, adp.ErrInvalid, "/seq"},
		{"signature type", `{"signature":true}`, adp.ErrInvalid, "/signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := adp.ParseCard([]byte(tc.in))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.path != "" {
				var ve *adp.ValidationError
				if !errors.As(err, &ve) || ve.Problems[0].Path != tc.path {
					t.Fatalf("got %v, want path %s", err, tc.path)
				}
			}
		})
	}
	if _, err := adp.ParseCard([]byte(okDepth)); err != nil {
		t.Fatalf("depth %d rejected: %v", adp.MaxDepth, err)
	}
}

func TestParseCardReportsEveryTypeProblem(t *testing.T) {
	_, err := adp.ParseCard([]byte(`{"id":1,"name":2,"tools":[{"name":3},{"idempotent":1}],"seq":"1"}`))
	paths := problemPaths(t, err)
	want := []string{"/id", "/name", "/seq", "/tools/0/name", "/tools/1/idempotent"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	if !strings.Contains(err.Error(), "/tools/0/name: must be a string") {
		t.Fatalf("message: %v", err)
	}
}

func TestMarshalEscapesAndRejectsBadRaw(t *testing.T) {
	c := &adp.Card{ID: "agent://x", Name: "a\"b\\c\n<&>\x01 é"}
	out, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"agent://x","name":"a\"b\\c\n<&>\u0001 é"}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	c.Extra = map[string]json.RawMessage{"bad": json.RawMessage(`{`)}
	if _, err := c.MarshalJSON(); err == nil {
		t.Fatal("invalid raw JSON accepted")
	}
	// Extra cannot shadow a known field.
	c.Extra = map[string]json.RawMessage{"name": json.RawMessage(`"other"`)}
	out, _ = c.MarshalJSON()
	if strings.Count(string(out), `"name"`) != 1 {
		t.Fatalf("duplicate key written: %s", out)
	}
}

func TestMarshalByValue(t *testing.T) {
	in := fullCardFor(t, 1)
	c, err := adp.ParseCard(in)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := struct {
		Card adp.Card  `json:"card"`
		Tool adp.Tool  `json:"tool"`
		Ptr  *adp.Card `json:"ptr"`
	}{Card: *c, Tool: c.Tools[0], Ptr: c}
	b, err := json.Marshal(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Card json.RawMessage `json:"card"`
		Tool json.RawMessage `json:"tool"`
		Ptr  json.RawMessage `json:"ptr"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(canon(t, back.Card), canon(t, in)) || !reflect.DeepEqual(canon(t, back.Ptr), canon(t, in)) {
		t.Fatalf("card held in a struct encodes differently: %s", back.Card)
	}
	if !strings.Contains(string(back.Tool), `"x-cost"`) || !strings.Contains(string(back.Tool), `"input_schema"`) {
		t.Fatalf("tool held in a struct: %s", back.Tool)
	}
}

func TestNestedTypesRoundTrip(t *testing.T) {
	var tools []adp.Tool
	in := `[{"name":"a","input_schema":{"type":"object"},"streaming":true,"x-k":[1]},{"name":"b"}]`
	if err := json.Unmarshal([]byte(in), &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "a" || !*tools[0].Streaming || string(tools[0].Extra["x-k"]) != "[1]" {
		t.Fatalf("decoded %+v", tools)
	}
	out, _ := json.Marshal(tools)
	if !reflect.DeepEqual(canon(t, out), canon(t, []byte(in))) {
		t.Fatalf("round trip: %s", out)
	}
	var ep adp.Endpoint
	if err := json.Unmarshal([]byte(`{"protocol":"aitp","uri":"x","priority":"high"}`), &ep); !errors.Is(err, adp.ErrInvalid) {
		t.Fatalf("bad priority: %v", err)
	}
	var md adp.Metadata
	if err := json.Unmarshal([]byte(`{"ttl":5,"ttl":6}`), &md); !errors.Is(err, adp.ErrMalformed) {
		t.Fatalf("duplicate key: %v", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	c, err := adp.ParseCard(fullCardFor(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := c.MarshalJSON()
	d := c.Clone()
	*d.Seq = 99
	d.Skills[0] = "changed"
	d.Tools[0].Name = "changed"
	*d.Tools[0].Idempotent = false
	d.Tools[0].InputSchema[0] = ' '
	d.Endpoints[0].Methods[0] = "changed"
	*d.Endpoints[1].Priority = 1
	*d.Constraints.MaxInputTokens = 1
	d.Constraints.SupportedLanguages[0] = "xx"
	*d.Metadata.TTL = 1
	d.Examples[0].Tags[0] = "changed"
	d.Extensions["new"] = json.RawMessage(`{}`)
	d.Extra["zzz"][1] = 'X'
	d.Raw()[0] = ' '
	after, _ := c.MarshalJSON()
	if !bytes.Equal(before, after) || c.Raw()[0] != '{' {
		t.Fatalf("mutating the clone changed the original:\n%s\n%s", before, after)
	}
	if (*adp.Card)(nil).Clone() != nil {
		t.Fatal("Clone of nil")
	}
}
