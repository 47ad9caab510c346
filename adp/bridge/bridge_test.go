package bridge_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

func TestParseFormat(t *testing.T) {
	for _, f := range bridge.Formats {
		got, err := bridge.ParseFormat(strings.ToUpper(string(f)))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", strings.ToUpper(string(f)), got, err)
		}
	}
	if _, err := bridge.ParseFormat("yaml"); !errors.Is(err, bridge.ErrUnknownFormat) {
		t.Errorf("ParseFormat(yaml): %v, want ErrUnknownFormat", err)
	}
	if _, err := bridge.Convert("yaml", bridge.FormatADP, []byte(`{}`)); !errors.Is(err, bridge.ErrUnknownFormat) {
		t.Errorf("Convert from yaml: %v, want ErrUnknownFormat", err)
	}
}

// TestHostileInput: every decoder bounds size and depth, insists on one
// JSON value in UTF-8, and reports type problems with JSON Pointers.
func TestHostileInput(t *testing.T) {
	huge := append(append([]byte(`{"name":"`), bytes.Repeat([]byte("a"), bridge.MaxDocSize)...), []byte(`"}`)...)
	deep := []byte(strings.Repeat("[", bridge.MaxDepth+1) + strings.Repeat("]", bridge.MaxDepth+1))
	deepInString := []byte(`{"name":"` + strings.Repeat("[", 1000) + `","tools":[]}`)
	for _, f := range bridge.Formats[1:] {
		t.Run(string(f), func(t *testing.T) {
			for _, tt := range []struct {
				name string
				in   []byte
				want error
			}{
				{"too large", huge, adp.ErrTooLarge},
				{"too deep", deep, adp.ErrTooDeep},
				{"invalid UTF-8", []byte("{\"name\":\"\xff\"}"), adp.ErrMalformed},
				{"two values", []byte(`{} {}`), adp.ErrMalformed},
				{"truncated", []byte(`{"name":`), adp.ErrMalformed},
				{"not an object", []byte(`[1,2]`), adp.ErrInvalid},
				{"empty", nil, adp.ErrMalformed},
			} {
				if _, err := bridge.Decode(f, tt.in); !errors.Is(err, tt.want) {
					t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
				}
			}
			// Brackets inside strings do not count towards the depth.
			if _, err := bridge.Decode(f, deepInString); errors.Is(err, adp.ErrTooDeep) {
				t.Errorf("brackets in a string counted as nesting: %v", err)
			}
		})
	}
}

func TestTypeErrors(t *testing.T) {
	tests := []struct {
		format bridge.Format
		doc    string
		paths  []string
	}{
		{bridge.FormatA2A, `{"name": 5, "skills": [{"id": "a", "tags": "x"}, {"id": "a"}, 3], "additionalInterfaces": [{"url": "u"}]}`,
			[]string{"/additionalInterfaces/0/transport", "/name", "/skills/0/tags", "/skills/1/id", "/skills/2"}},
		{bridge.FormatA2A, `{"name": "x", "capabilities": {"extensions": [{"uri": "urn:adp:card", "params": []}]}}`,
			[]string{"/capabilities/extensions/0/params"}},
		{bridge.FormatMCP, `{"tools": [{"description": "d"}, {"name": "t", "inputSchema": "s", "annotations": {"idempotentHint": "yes"}}]}`,
			[]string{"/tools/0/name", "/tools/1/annotations/idempotentHint", "/tools/1/inputSchema"}},
		{bridge.FormatMCP, `{"cursor": "x"}`, []string{"/tools"}},
		{bridge.FormatOASFRecord, `{"name": 1, "skills": [{"id": 1}, 2], "annotations": {"urn:adp:card": "[1]"}}`,
			[]string{"/annotations/urn:adp:card", "/name", "/skills/0/name", "/skills/1"}},
		{bridge.FormatOASF, `{"metadata": {"labels": {"skills": 1}, "annotations": {"urn:adp:card": "[1]"}}, "spec": {"capabilities": [{}], "endpoints": [{"protocol": "x"}]}}`,
			[]string{"/metadata/annotations/urn:adp:card", "/metadata/labels/skills", "/metadata/name", "/spec/capabilities/0/name", "/spec/endpoints/0/url"}},
		{bridge.FormatProfile, `{"id": "x", "name": "n", "bindings": [], "updated_at": "yesterday", "examples": [{"id": "e"}]}`,
			[]string{"/bindings", "/description", "/examples/0/text", "/updated_at"}},
		{bridge.FormatProfile, `{"id": "x", "name": "n", "description": "d", "bindings": [{"protocol": "https"}], "tags": [1]}`,
			[]string{"/bindings/0/endpoint", "/tags/0"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			_, err := bridge.Decode(tt.format, []byte(tt.doc))
			requireProblemPaths(t, "Decode", err, tt.paths)
		})
	}
}

// TestProfileVectors: the discovery profile's Section 13 test vectors.
func TestProfileVectors(t *testing.T) {
	// 13.1: a D0 implementation must accept the minimal metadata.
	c, err := bridge.FromProfile(readTestdata(t, "profile-13.1.json"))
	if err != nil {
		t.Fatalf("13.1: %v", err)
	}
	if c.Name != "Minimal Agent" || c.Description != "Answers short factual questions." ||
		len(c.Endpoints) != 1 || c.Endpoints[0].Protocol != "https" || c.Endpoints[0].URI != "https://example.net/agent/invoke" {
		t.Fatalf("13.1 imported as %+v", c)
	}
	// Its id is no ADP agent id: kept for the way back, the card has none.
	if c.ID != "" || !strings.Contains(string(c.Extensions["profile"]), "https://example.net/agents/minimal") {
		t.Fatalf("13.1 id handling: id %q, extensions %s", c.ID, c.Extensions["profile"])
	}
	// 13.2 and 13.3 are discovery requests: adp.ParseDiscoverRequest reads them.
	q, err := adp.ParseDiscoverRequest(readTestdata(t, "discover-13.2.json"))
	if err != nil {
		t.Fatalf("13.2: %v", err)
	}
	if q.Query != "answer a short factual question" || q.Limit != 1 || len(q.Protocols) != 1 || q.IncludeEvidence {
		t.Fatalf("13.2 parsed as %+v", q)
	}
	q, err = adp.ParseDiscoverRequest(readTestdata(t, "discover-13.3.json"))
	if err != nil {
		t.Fatalf("13.3: %v", err)
	}
	if len(q.RequiredTags) != 1 || q.RequiredTags[0] != "translation" || q.Constraints["unsupported_private_filter"] == nil {
		t.Fatalf("13.3 parsed as %+v", q)
	}
}

func TestProfileRequiresD0(t *testing.T) {
	c, _ := signedCard(t)
	cc := c.Clone()
	cc.Description = ""
	cc.Endpoints = nil
	_, err := bridge.ToProfile(cc)
	var ve *adp.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 || ve.Problems[0].Path != "/description" || ve.Problems[1].Path != "/bindings" {
		t.Fatalf("ToProfile without description and endpoints: %v", err)
	}
}

func TestANPCollection(t *testing.T) {
	c, _ := signedCard(t)
	c2, _ := signedCard(t)
	c2.Name = "second"
	out, err := bridge.ANPCollection([]*adp.Card{c, c2}, "https://node.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(c.ID, "agent://")
	want := `{
	  "@context": {"@vocab": "https://schema.org/", "did": "https://w3id.org/did#", "ad": "https://agent-network-protocol.com/ad#"},
	  "@type": "CollectionPage",
	  "url": "https://node.example.com/.well-known/agent-descriptions",
	  "items": [
	    {"@type": "ad:AgentDescription", "name": "translator-zh-en", "@id": "https://node.example.com/agents/` + id + `/ad.json"},
	    {"@type": "ad:AgentDescription", "name": "second", "@id": "https://node.example.com/agents/` + id + `/ad.json"}
	  ]
	}`
	requireSameJSON(t, "ANP collection", out, []byte(want))

	// Pagination: page 1 of size 1 links to page 2, which is the last.
	p1, err := bridge.ANPCollectionPage([]*adp.Card{c, c2}, "https://node.example.com", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	d1 := decodeJSON(t, p1).(map[string]any)
	if d1["next"] != "https://node.example.com/.well-known/agent-descriptions?page=2" || len(d1["items"].([]any)) != 1 {
		t.Fatalf("page 1: %s", p1)
	}
	p2, err := bridge.ANPCollectionPage([]*adp.Card{c, c2}, "https://node.example.com", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	d2 := decodeJSON(t, p2).(map[string]any)
	if _, ok := d2["next"]; ok || d2["items"].([]any)[0].(map[string]any)["name"] != "second" {
		t.Fatalf("page 2: %s", p2)
	}

	for _, base := range []string{"node.example.com", "ftp://node.example.com", "https://h/?q=1", ""} {
		if _, err := bridge.ANPCollection([]*adp.Card{c}, base); err == nil {
			t.Errorf("base URL %q accepted", base)
		}
	}
	bad := c.Clone()
	bad.ID = "agent://translator-zh-en"
	var ve *adp.ValidationError
	if _, err := bridge.ANPCollection([]*adp.Card{c, bad}, "https://h"); !errors.As(err, &ve) || ve.Problems[0].Path != "/items/1/@id" {
		t.Fatalf("card without a key id: %v", err)
	}

	desc, err := bridge.ANPDescription(c, "https://node.example.com")
	if err != nil {
		t.Fatal(err)
	}
	dd := decodeJSON(t, desc).(map[string]any)
	if dd["@type"] != "ad:AgentDescription" || dd["@id"] != "https://node.example.com/agents/"+id+"/ad.json" ||
		dd["did"] != c.DID || len(dd["interfaces"].([]any)) != 2 || dd["ad:agentCard"].(map[string]any)["id"] != c.ID {
		t.Fatalf("ANP description: %s", desc)
	}
}

func TestAgentJSON(t *testing.T) {
	c, _ := signedCard(t)
	out, err := bridge.AgentJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "card.agent.json", out)
	d := decodeJSON(t, out).(map[string]any)
	if d["url"] != c.ID || len(d["capabilities"].([]any)) != 2 || len(d["skills"].([]any)) != 3 {
		t.Fatalf("agent.json: %s", out)
	}
	// Its url is an agent:// URI the agenturi parser accepts (checked in
	// that package); the registry maps names to descriptor URLs.
	reg, err := bridge.AgentsJSON(map[string]string{"planner": "https://planner.example.com/.well-known/agent.json"})
	if err != nil {
		t.Fatal(err)
	}
	requireSameJSON(t, "agents.json", reg, []byte(`{"agents":{"planner":"https://planner.example.com/.well-known/agent.json"}}`))
}

// FuzzDecode feeds every decoder arbitrary bytes. Whatever a decoder accepts
// must fit in an ADP card and survive a trip through its own format: the
// export either fails with a validation error or gives a document that
// imports to the same card.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"a2a.json", "a2a-1.0.json", "mcp.json", "oasf.json", "agentcard.json", "profile-4.9.json", "profile-13.1.json", "oasf-record.json"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(`{"name":"x","skills":[{"id":"a","tags":["A B"]}],"capabilities":{"extensions":[{"uri":"urn:adp:card","params":{"seq":1}}]}}`))
	f.Add([]byte(`"{\"agent_id\":\"01HZQK3P8EMXR9V7T5N2W4J6C0\"}"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range bridge.Formats[1:] {
			c, err := bridge.Decode(fm, data)
			if err != nil {
				continue
			}
			b, err := c.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: decoded card does not encode: %v", fm, err)
			}
			if len(b) > adp.MaxCardSize {
				t.Fatalf("%s: decoded card is %d octets", fm, len(b))
			}
			out, err := bridge.Encode(fm, c)
			if err != nil {
				if !errors.Is(err, adp.ErrInvalid) {
					t.Fatalf("%s: export failed without a validation error: %v", fm, err)
				}
				continue
			}
			again, err := bridge.Decode(fm, out)
			if err != nil {
				t.Fatalf("%s: exported document %s does not import: %v", fm, out, err)
			}
			b2, _ := again.MarshalJSON()
			requireSameJSON(t, string(fm)+" card after export and import", b2, b)
		}
	})
}

// TestRepetitiveInput: documents that repeat one entry many thousands of
// times (within MaxDocSize) are handled in linear time: repeated interfaces
// collapse into one endpoint, and repeated tags, which the import must keep
// as written in extensions["a2a"], make a card over adp.MaxCardSize, which
// is refused.
func TestRepetitiveInput(t *testing.T) {
	const n = 15000
	repeat := func(prefix, item, suffix string) []byte {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item)
		}
		b.WriteString(suffix)
		if b.Len() > bridge.MaxDocSize {
			t.Fatalf("test document is %d octets, over MaxDocSize", b.Len())
		}
		return []byte(b.String())
	}
	c, err := bridge.FromA2A(repeat(`{"name":"rep","url":"https://h/a","additionalInterfaces":[`, `{"url":"https://h/a","transport":"JSONRPC"}`, `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(c.Endpoints))
	}
	_, err = bridge.FromA2A(repeat(`{"name":"rep","skills":[{"id":"s","description":"d","tags":[`, `"Same Tag"`, `]}]}`))
	if !errors.Is(err, adp.ErrTooLarge) {
		t.Fatalf("15000 kept tags: %v, want ErrTooLarge", err)
	}
}
