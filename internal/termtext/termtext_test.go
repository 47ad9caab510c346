package termtext_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/internal/termtext"
)

func TestRule(t *testing.T) {
	tests := []struct {
		name              string
		s                 string
		token, line, text bool // allowed under each rule
	}{
		{"plain", "Alice 翻訳 émoji 🙂", true, true, true},
		{"empty", "", true, true, true},
		{"ESC", "a\x1b[31m", false, false, false},
		{"BEL", "a\a", false, false, false},
		{"NUL", "a\x00", false, false, false},
		{"CR", "a\rb", false, false, false},
		{"newline", "a\nb", false, false, true},
		{"tab", "a\tb", false, false, true},
		{"DEL", "a\x7f", false, false, false},
		{"C1 CSI", "a\u009b31m", false, false, false},
		{"RLO", "a\u202eb", false, false, false},
		{"LRE", "a\u202ab", false, false, false},
		{"RLI", "a\u2067b", false, false, false},
		{"PDI", "a\u2069b", false, false, false},
		{"RLM", "a\u200fb", false, false, false},
		{"ZWSP", "a\u200bb", false, false, false},
		{"word joiner", "a\u2060b", false, false, false},
		{"invisible plus", "a\u2064b", false, false, false},
		{"BOM", "\ufeffa", false, false, false},
		{"soft hyphen", "a\u00adb", false, false, false},
		{"tag character", "a\U000e0041", false, false, false},
		{"line separator", "a\u2028b", false, false, false},
		{"paragraph separator", "a\u2029b", false, false, false},
		{"ZWJ", "👩\u200d💻", false, true, true},
		{"ZWNJ", "می\u200cخواهم", false, true, true},
		{"not UTF-8", "a\xffb", false, false, false},
	}
	for _, tc := range tests {
		for _, c := range []struct {
			rule termtext.Rule
			want bool
		}{{termtext.Token, tc.token}, {termtext.Line, tc.line}, {termtext.Text, tc.text}} {
			_, r, bad := c.rule.Find(tc.s)
			if bad == c.want {
				t.Errorf("%s: rule %d allows %q = %v, want %v (found %U)", tc.name, c.rule, tc.s, !bad, c.want, r)
			}
			if err := c.rule.Problem(tc.s); (err == nil) != c.want {
				t.Errorf("%s: rule %d Problem = %v", tc.name, c.rule, err)
			}
		}
	}
}

func TestFindOffset(t *testing.T) {
	off, r, bad := termtext.Line.Find("héllo\u202eworld")
	if !bad || off != 6 || r != '\u202e' {
		t.Fatalf("Find = %d %U %v, want 6 U+202E true", off, r, bad)
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Alice", "Alice"},
		{"Alice \x1b[31mRED\x1b[0m", `Alice \x1b[31mRED\x1b[0m`},
		{"\x1b]0;title\a", `\x1b]0;title\x07`},
		{"row\nFAKE\tROW\r", `row\nFAKE\tROW\r`},
		{"a\u202eb\u2066c\u200bd\ufeff", `a\u202eb\u2066c\u200bd\ufeff`},
		{"a\u2028b\u0085c\x7f", `a\u2028b\u0085c\x7f`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"👩\u200d💻 翻訳", "👩\u200d💻 翻訳"},
		{`back\slash`, `back\slash`},
	}
	for _, tc := range tests {
		got := termtext.Escape(tc.in)
		if got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Errorf("Escape(%q) left %U", tc.in, r)
			}
		}
	}
}

func TestEscapeLines(t *testing.T) {
	got := termtext.EscapeLines("/name: bad\n/tools/0/name: \x1b[2J")
	if want := "/name: bad\n/tools/0/name: \\x1b[2J"; got != want {
		t.Fatalf("EscapeLines = %q, want %q", got, want)
	}
}

func TestEscapeJSON(t *testing.T) {
	v := map[string]string{"name": "a\u202eb\u0085c\u2028\u200bd\U000e0041👩\u200d💻\x1b"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	// A document passed through may hold the characters raw.
	raw = []byte(strings.ReplaceAll(string(raw), `\u2028`, "\u2028"))
	raw = append(raw, []byte(" \n")...)
	got := termtext.EscapeJSON(raw)
	for _, bad := range []string{"\u202e", "\u0085", "\u2028", "\u200b", "\U000e0041", "\x1b"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("EscapeJSON left %+q in %s", bad, got)
		}
	}
	if !strings.Contains(string(got), `\u202e`) || !strings.Contains(string(got), `\udb40\udc41`) {
		t.Errorf("EscapeJSON = %s", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back["name"] != v["name"] {
		t.Fatalf("value changed: %q, want %q", back["name"], v["name"])
	}
	if plain := []byte(`{"a":"b"}`); &termtext.EscapeJSON(plain)[0] != &plain[0] {
		t.Error("EscapeJSON copied a document with nothing to escape")
	}
	if got := termtext.EscapeJSON([]byte("\"a\xffb\"")); string(got) != `"a\ufffdb"` {
		t.Errorf("EscapeJSON of invalid UTF-8 = %q", got)
	}
}
