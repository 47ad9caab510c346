package adp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
)

func validCard(t *testing.T) *adp.Card {
	t.Helper()
	c, err := adp.ParseCard(fullCardFor(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	c = c.Clone()
	return c
}

func problemPaths(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *adp.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("not a ValidationError: %v", err)
	}
	if !errors.Is(err, adp.ErrInvalid) {
		t.Fatal("ValidationError does not match ErrInvalid")
	}
	var out []string
	for _, p := range ve.Problems {
		if p.Message == "" {
			t.Fatalf("problem at %s has no message", p.Path)
		}
		out = append(out, p.Path)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	other, _ := adp.DIDKey(fixedKey(t, 2).GetPublic())
	for _, tc := range []struct {
		name   string
		mutate func(c *adp.Card)
		want   []string
	}{
		{"valid", func(c *adp.Card) {}, nil},
		{"minimal", func(c *adp.Card) { *c = adp.Card{ID: c.ID, Name: "m"} }, nil},
		{"revocation", func(c *adp.Card) { c.Tools, c.Endpoints = []adp.Tool{}, []adp.Endpoint{} }, nil},
		{"base58 id", func(c *adp.Card) { c.ID = "agent://" + mustPeer(t, 1).String() }, nil},
		{"unknown protocol and auth", func(c *adp.Card) {
			c.Endpoints = []adp.Endpoint{{Protocol: "x-new", URI: "x://y", Auth: "magic"}}
		}, nil},
		{"other did method", func(c *adp.Card) { c.DID = "did:web:example.com" }, nil},
		{"upper-case and unicode tags tolerated", func(c *adp.Card) { c.Skills = []string{"NLP/Translation", "翻译", "c++", "c#", "node.js"} }, nil},
		{"missing id and name", func(c *adp.Card) { c.ID, c.Name = "", " " }, []string{"/id", "/name"}},
		{"name-based id", func(c *adp.Card) { c.ID, c.DID = "agent://translator-zh-en", "" }, []string{"/id"}},
		{"upper-case scheme", func(c *adp.Card) { c.ID = "AGENT://" + strings.TrimPrefix(c.ID, "agent://") }, nil},
		{"id with a path", func(c *adp.Card) { c.ID += "/translate" }, []string{"/id"}},
		{"id with a port", func(c *adp.Card) { c.ID += ":4001" }, []string{"/id"}},
		{"id with a query", func(c *adp.Card) { c.ID += "?x=1" }, []string{"/id"}},
		{"id with a transport binding", func(c *adp.Card) { c.ID = "agent+https://" + strings.TrimPrefix(c.ID, "agent://") }, []string{"/id"}},
		{"id of another scheme", func(c *adp.Card) { c.ID = "https://" + strings.TrimPrefix(c.ID, "agent://") }, []string{"/id"}},
		{"id without host", func(c *adp.Card) { c.ID = "agent://" }, []string{"/id"}},
		{"id with a space", func(c *adp.Card) { c.ID += " " }, []string{"/id"}},
		{"did of another key", func(c *adp.Card) { c.DID = other }, []string{"/did"}},
		{"not a did", func(c *adp.Card) { c.DID = "key:z6Mk" }, []string{"/did"}},
		{"bad did:key", func(c *adp.Card) { c.DID = "did:key:z6Mk" }, []string{"/did"}},
		{"bad tags", func(c *adp.Card) {
			c.Skills = []string{"ok", "", "nlp/", "/nlp", "nlp//x", "has space", "nlp/*", strings.Repeat("a", adp.MaxTagLen+1)}
		}, []string{"/skills/1", "/skills/2", "/skills/3", "/skills/4", "/skills/5", "/skills/6", "/skills/7"}},
		{"tool names", func(c *adp.Card) {
			c.Tools = []adp.Tool{{Name: "a"}, {Name: ""}, {Name: "a"}, {Name: strings.Repeat("n", 256)}, {Name: strings.Repeat("n", 255)}, {Name: "x\ny"}}
		}, []string{"/tools/1/name", "/tools/2/name", "/tools/3/name", "/tools/5/name"}},
		{"schemas", func(c *adp.Card) {
			c.Tools = []adp.Tool{{Name: "a", InputSchema: json.RawMessage(`true`), OutputSchema: json.RawMessage(`{`)}}
		}, []string{"/tools/0/input_schema", "/tools/0/output_schema"}},
		{"endpoints", func(c *adp.Card) {
			c.Endpoints = []adp.Endpoint{{URI: "x"}, {Protocol: "aitp"}, {Protocol: "aitp", URI: "a b", Methods: []string{""}}}
		}, []string{"/endpoints/0/protocol", "/endpoints/1/uri", "/endpoints/2/methods/0", "/endpoints/2/uri"}},
		{"constraints", func(c *adp.Card) {
			c.Constraints = &adp.Constraints{MaxConcurrentTasks: ptr(-1), MaxInputTokens: ptr(-2), SupportedLanguages: []string{"en", "zh-Hans", "e", "english language"}}
		}, []string{"/constraints/max_concurrent_tasks", "/constraints/max_input_tokens", "/constraints/supported_languages/2", "/constraints/supported_languages/3"}},
		{"metadata", func(c *adp.Card) {
			c.Metadata = &adp.Metadata{CreatedAt: "2026-01-15", UpdatedAt: "2026-01-15T00:00:00.123+01:00", TTL: ptr[int64](-1)}
		}, []string{"/metadata/created_at", "/metadata/ttl"}},
		{"extensions", func(c *adp.Card) {
			c.Extensions = map[string]json.RawMessage{"a/b": json.RawMessage(`1`), "ok": json.RawMessage(`{}`), "bad": json.RawMessage(`{`)}
		}, []string{"/extensions/a~1b", "/extensions/bad"}},
		{"examples", func(c *adp.Card) {
			c.Examples = []adp.Example{{ID: "1", Text: ""}, {Text: "ok", Tags: []string{"a b"}}}
		}, []string{"/examples/0/text", "/examples/1/tags/0"}},
		{"status", func(c *adp.Card) { c.Status = "retired" }, []string{"/status"}},
		{"seq", func(c *adp.Card) { c.Seq = ptr[uint64](adp.MaxSeq + 1) }, []string{"/seq"}},
		{"signature syntax", func(c *adp.Card) { c.Signature = "abc" }, []string{"/signature"}},
		{"extra raw", func(c *adp.Card) { c.Extra = map[string]json.RawMessage{"x": json.RawMessage(`nope`)} }, []string{"/x"}},
		{"too large", func(c *adp.Card) { c.Description = strings.Repeat("d", adp.MaxCardSize) }, []string{""}},
		{"too deep", func(c *adp.Card) {
			c.Extensions = map[string]json.RawMessage{"d": json.RawMessage(strings.Repeat(`{"a":`, adp.MaxDepth) + "1" + strings.Repeat("}", adp.MaxDepth))}
		}, []string{""}},
		{"many at once", func(c *adp.Card) {
			c.Name = ""
			c.Status = "x"
			c.Tools[0].Name = ""
			c.Endpoints[0].URI = ""
		}, []string{"/endpoints/0/uri", "/name", "/status", "/tools/0/name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCard(t)
			tc.mutate(c)
			// A card built in code has no Raw: drop it by cloning through
			// the fields only.
			got := problemPaths(t, withoutRaw(c).Validate())
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("problems at %v, want %v\n%v", got, tc.want, withoutRaw(c).Validate())
			}
		})
	}
}

// withoutRaw returns a copy of c built in code (no Raw bytes).
func withoutRaw(c *adp.Card) *adp.Card {
	n := c.Clone()
	out := adp.Card{
		ID: n.ID, Name: n.Name, Description: n.Description, Version: n.Version, Skills: n.Skills,
		Tools: n.Tools, Endpoints: n.Endpoints, Constraints: n.Constraints, DID: n.DID, Metadata: n.Metadata,
		Extensions: n.Extensions, Examples: n.Examples, Status: n.Status, Seq: n.Seq, Signature: n.Signature, Extra: n.Extra,
	}
	return &out
}

// TestValidateIDMessages: an id that breaks the agent URI grammar is
// reported by component, and a well-formed agent URI that is not an ADP id
// says why.
func TestValidateIDMessages(t *testing.T) {
	id := validCard(t).ID
	for _, tc := range []struct{ id, want string }{
		{"agent://a b", "host at offset"},
		{"http://x", "scheme"},
		{"agent+https://x", "transport binding"},
		{id + "/path", "no userinfo, port, path, query or fragment"},
		{"agent://translator-zh-en", "peer ID"},
	} {
		err := (&adp.Card{ID: tc.id, Name: "n"}).Validate()
		var ve *adp.ValidationError
		if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Path != "/id" {
			t.Fatalf("%q: %v, want one problem at /id", tc.id, err)
		}
		if !strings.Contains(ve.Problems[0].Message, tc.want) {
			t.Errorf("%q: message %q does not mention %q", tc.id, ve.Problems[0].Message, tc.want)
		}
	}
}

func TestValidateErrorText(t *testing.T) {
	c := &adp.Card{Tools: []adp.Tool{{}}}
	err := c.Validate()
	want := "/id: is required\n/name: is required\n/tools/0/name: is required"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

// TestSpecExample checks the complete example of ADP 3.9 parses, and that
// its name-based id is the only thing this node's identity model rejects.
func TestSpecExample(t *testing.T) {
	c, err := adp.ParseCard(readTestdata(t, "adp-3.9-example.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := problemPaths(t, c.Validate())
	if want := []string{"/id"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("problems at %v, want %v: %v", got, want, c.Validate())
	}
	if len(c.Endpoints) != 2 || *c.Endpoints[1].Priority != 10 || *c.Constraints.MaxInputTokens != 100000 {
		t.Fatal("fields not decoded")
	}
}

// TestValidateText: text fields refuse what would act on a terminal or
// disguise the text (internal/termtext), each at its own path; free text
// allows newline and tab.
func TestValidateText(t *testing.T) {
	classes := []struct {
		name string
		s    string
	}{
		{"ESC", "\x1b[31mRED\x1b[0m"},
		{"OSC title with BEL", "\x1b]0;title\a"},
		{"CR", "a\rb"},
		{"NUL", "a\x00b"},
		{"DEL", "a\x7fb"},
		{"C1 CSI", "a\u009b31m"},
		{"bidi override", "a\u202eb"},
		{"bidi embedding", "a\u202ab"},
		{"bidi isolate", "a\u2066b\u2069"},
		{"right-to-left mark", "a\u200fb"},
		{"zero-width space", "a\u200bb"},
		{"word joiner", "a\u2060b"},
		{"byte order mark", "\ufeffa"},
		{"line separator", "a\u2028b"},
		{"paragraph separator", "a\u2029b"},
		{"tag character", "a\U000e0041"},
		{"not UTF-8", "a\xffb"},
	}
	fields := []struct {
		path string
		set  func(c *adp.Card, s string)
	}{
		{"/id", func(c *adp.Card, s string) { c.ID += s }},
		{"/name", func(c *adp.Card, s string) { c.Name += s }},
		{"/description", func(c *adp.Card, s string) { c.Description += s }},
		{"/version", func(c *adp.Card, s string) { c.Version += s }},
		{"/did", func(c *adp.Card, s string) { c.DID = "did:web:example.com" + s }},
		{"/skills/0", func(c *adp.Card, s string) { c.Skills[0] += s }},
		{"/tools/0/name", func(c *adp.Card, s string) { c.Tools[0].Name += s }},
		{"/tools/0/description", func(c *adp.Card, s string) { c.Tools[0].Description += s }},
		{"/endpoints/0/protocol", func(c *adp.Card, s string) { c.Endpoints[0].Protocol += s }},
		{"/endpoints/0/uri", func(c *adp.Card, s string) { c.Endpoints[0].URI += s }},
		{"/endpoints/0/methods/0", func(c *adp.Card, s string) { c.Endpoints[0].Methods[0] += s }},
		{"/endpoints/1/auth", func(c *adp.Card, s string) { c.Endpoints[1].Auth += s }},
		{"/constraints/rate_limit", func(c *adp.Card, s string) { c.Constraints.RateLimit += s }},
		{"/examples/0/id", func(c *adp.Card, s string) { c.Examples[0].ID += s }},
		{"/examples/0/text", func(c *adp.Card, s string) { c.Examples[0].Text += s }},
		{"/examples/0/tags/0", func(c *adp.Card, s string) { c.Examples[0].Tags[0] += s }},
		{"/x-note" + "\u202e", func(c *adp.Card, s string) {
			c.Extra = map[string]json.RawMessage{"x-note\u202e": json.RawMessage(`1`)}
		}},
	}
	check := func(t *testing.T, c *adp.Card, want []string) {
		t.Helper()
		err := withoutRaw(c).Validate()
		if got := problemPaths(t, err); !reflect.DeepEqual(got, want) {
			t.Fatalf("problems at %q, want %q\n%v", got, want, err)
		}
	}
	for _, cl := range classes {
		for _, f := range fields {
			t.Run(cl.name+" in "+f.path, func(t *testing.T) {
				c := validCard(t)
				f.set(c, cl.s)
				check(t, c, []string{f.path})
			})
		}
	}
	// Newline and tab: free text only.
	for _, f := range fields {
		free := f.path == "/description" || f.path == "/tools/0/description" || f.path == "/examples/0/text"
		for _, s := range []string{"a\nb", "a\tb"} {
			t.Run(strings.TrimPrefix(fmt.Sprintf("%q in %s", s, f.path), "/"), func(t *testing.T) {
				c := validCard(t)
				f.set(c, s)
				var want []string
				if !free {
					want = []string{f.path}
				}
				check(t, c, want)
			})
		}
	}
	// The zero-width joiners write scripts and emoji: allowed in human
	// text, refused in identifiers.
	t.Run("joiners", func(t *testing.T) {
		c := validCard(t)
		c.Name = "👩\u200d💻 می\u200cخواهم"
		c.Description = "line one\n\tline two 👩\u200d💻"
		c.Tools[0].Name += "\u200d"
		check(t, c, []string{"/tools/0/name"})
	})
	// The message names the character.
	c := validCard(t)
	c.Name += "\u202e"
	var ve *adp.ValidationError
	if err := withoutRaw(c).Validate(); !errors.As(err, &ve) || !strings.Contains(ve.Problems[0].Message, "U+202E") {
		t.Fatalf("message %v does not name U+202E", err)
	}
}
