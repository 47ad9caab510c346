package agenturi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/agenturi"
)

// adpID is an ADP agent id: a libp2p Ed25519 peer ID as base36 CIDv1.
const adpID = "agent://k51qzi5uqu5dgutdk6i1ynyzgkqngpha5xpgia3uyr4atkijpyzn2ghbgfdn9c"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want agenturi.URI
	}{
		// Examples of the draft, Section 4.
		{"agent://example.com/planning/gen-iti?city=Paris",
			agenturi.URI{Host: "example.com", Path: "/planning/gen-iti", Query: "city=Paris"}},
		{"agent://planner.example.com/claude?text=Hello",
			agenturi.URI{Host: "planner.example.com", Path: "/claude", Query: "text=Hello"}},
		{"agent+https://example.com/assistants/chatgpt?query=hello",
			agenturi.URI{Protocol: "https", Host: "example.com", Path: "/assistants/chatgpt", Query: "query=hello"}},
		{"agent+local://examplelocalagent",
			agenturi.URI{Protocol: "local", Host: "examplelocalagent"}},
		{"agent://did:web:example.com/agent:researcher/get-article?doi=..",
			agenturi.URI{Host: "did:web:example.com", Path: "/agent:researcher/get-article", Query: "doi=.."}},
		// ADP ids.
		{adpID, agenturi.URI{Host: adpID[len("agent://"):]}},
		{"agent://12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA",
			agenturi.URI{Host: "12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA"}},
		{"agent://translator-zh-en", agenturi.URI{Host: "translator-zh-en"}},
		// Authority forms of RFC 3986.
		{"agent://user:pw@host:8080/x", agenturi.URI{UserInfo: "user:pw", Host: "host", Port: "8080", Path: "/x"}},
		{"agent://host:", agenturi.URI{Host: "host"}},
		{"agent://127.0.0.1:1/", agenturi.URI{Host: "127.0.0.1", Port: "1", Path: "/"}},
		{"agent://[2001:db8::1]:443/a", agenturi.URI{Host: "[2001:db8::1]", Port: "443", Path: "/a"}},
		{"agent://[v7.a:b]", agenturi.URI{Host: "[v7.a:b]"}},
		{"agent://did:80", agenturi.URI{Host: "did", Port: "80"}},
		{"agent://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
			agenturi.URI{Host: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}},
		{"agent://did:web:example.com%3A8800:user:alice",
			agenturi.URI{Host: "did:web:example.com%3A8800:user:alice"}},
		// Scheme case, empty query and fragment, every character class.
		{"AGENT+WSS://h", agenturi.URI{Protocol: "wss", Host: "h"}},
		{"agent://h?#", agenturi.URI{Host: "h"}},
		{"agent://h/a%20b/c;d=e,f@g?x=/y?z#frag/?!", agenturi.URI{Host: "h", Path: "/a%20b/c;d=e,f@g", Query: "x=/y?z", Fragment: "frag/?!"}},
		{"agent://h//double", agenturi.URI{Host: "h", Path: "//double"}},
		{"agent://h#only-fragment", agenturi.URI{Host: "h", Fragment: "only-fragment"}},
		{"agent://sub-delims!$&'()*+,;=~._", agenturi.URI{Host: "sub-delims!$&'()*+,;=~._"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := agenturi.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			again, err := agenturi.Parse(got.String())
			if err != nil || again != got {
				t.Fatalf("reparse of %q = %#v, %v; want %#v", got.String(), again, err, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in        string
		component string
		offset    int
		scheme    bool
	}{
		{"https://example.com", "scheme", 0, true},
		{"agent:/example.com", "scheme", 0, true},
		{"agentx://h", "scheme", 5, true},
		{"", "scheme", 0, true},
		{"agent+://h", "protocol", 6, false},
		{"agent+ht_tp://h", "protocol", 8, false},
		{"agent://", "host", 8, false},
		{"agent:///path", "host", 8, false},
		{"agent://u@", "host", 10, false},
		{"agent://:80", "host", 8, false},
		{"agent://ho st", "host", 10, false},
		{"agent://h\u00e9", "host", 9, false},
		{"agent://h%4", "host", 9, false},
		{"agent://h%zz", "host", 9, false},
		{"agent://a@b@c", "host", 11, false},
		{"agent://u[x@h", "userinfo", 9, false},
		{"agent://h:8x", "port", 11, false},
		{"agent://h:65536", "port", 10, false},
		{"agent://h:99999999999999999999", "port", 10, false},
		{"agent://[::1", "host", 8, false},
		{"agent://[zz]", "host", 9, false},
		{"agent://[127.0.0.1]", "host", 9, false},
		{"agent://[fe80::1%25eth0]", "host", 9, false},
		{"agent://[::1]x", "host", 13, false},
		{"agent://[v.x]", "host", 9, false},
		{"agent://[v1.]", "host", 9, false},
		{"agent://[v1.a/b]", "host", 8, false},
		{"agent://did:Web:x", "did", 12, false},
		{"agent://did::x", "did", 12, false},
		{"agent://did:web:", "did", 16, false},
		{"agent://did:web:a:", "did", 18, false},
		{"agent://did:web:a b", "did", 17, false},
		{"agent://h/a b", "path", 11, false},
		{"agent://h/a\\b", "path", 11, false},
		{"agent://h?q=a b", "query", 13, false},
		{"agent://h?q=%", "query", 12, false},
		{"agent://h#a#b", "fragment", 11, false},
		{"agent://h#\x00", "fragment", 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := agenturi.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %#v, want an error", tt.in, u)
			}
			if !errors.Is(err, agenturi.ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			if errors.Is(err, agenturi.ErrScheme) != tt.scheme {
				t.Fatalf("errors.Is(%v, ErrScheme) = %v, want %v", err, !tt.scheme, tt.scheme)
			}
			var se *agenturi.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Component != tt.component || se.Offset != tt.offset {
				t.Fatalf("error at %s:%d (%v), want %s:%d", se.Component, se.Offset, err, tt.component, tt.offset)
			}
		})
	}
}

func TestParseTooLong(t *testing.T) {
	long := "agent://h/" + strings.Repeat("a", agenturi.MaxLength)
	if _, err := agenturi.Parse(long); !errors.Is(err, agenturi.ErrTooLong) {
		t.Fatalf("Parse of %d octets: %v, want ErrTooLong", len(long), err)
	}
	atLimit := "agent://h/" + strings.Repeat("a", agenturi.MaxLength-len("agent://h/"))
	if _, err := agenturi.Parse(atLimit); err != nil {
		t.Fatalf("Parse of exactly MaxLength octets: %v", err)
	}
	longProto := "agent+" + strings.Repeat("p", agenturi.MaxProtocolLength+1) + "://h"
	if _, err := agenturi.Parse(longProto); !errors.Is(err, agenturi.ErrSyntax) {
		t.Fatalf("Parse with a %d-octet protocol: %v, want ErrSyntax", agenturi.MaxProtocolLength+1, err)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"AGENT://Example.COM/a", "agent://example.com/a"},
		{"Agent+HTTPS://H", "agent+https://h"},
		{"agent://h/%7euser/%2fx/%e2%82%ac", "agent://h/~user/%2Fx/%E2%82%AC"},
		{"agent://%41b.example", "agent://ab.example"},
		{"agent://h/a/./b/../c/./d/..", "agent://h/a/c/"},
		{"agent://h/../../x", "agent://h/x"},
		{"agent://h/.", "agent://h/"},
		{"agent://h/.hidden/..x", "agent://h/.hidden/..x"},
		{"agent://h:0080", "agent://h:80"},
		{"agent://h:000", "agent://h:0"},
		{"agent://h?Q=%7e%2f#F%61", "agent://h?Q=~%2F#Fa"},
		{"agent://U%3aSER@h", "agent://U%3ASER@h"},
		{"agent://[2001:DB8::1]", "agent://[2001:db8::1]"},
		// DIDs and their method-specific ids are case-sensitive.
		{"agent://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK/X",
			"agent://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK/X"},
		// Base36 ADP ids are already lower case and survive.
		{adpID, adpID},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := agenturi.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			n := u.Normalize()
			if got := n.String(); got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if nn := n.Normalize(); nn != n {
				t.Fatalf("Normalize is not idempotent: %#v then %#v", n, nn)
			}
		})
	}
}

func TestAccessors(t *testing.T) {
	u, err := agenturi.Parse("agent+https://bob@example.com:8443/planning/gen%2Diti/?city=Paris&city=Rio&x=%20#ctx")
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Scheme(); got != "agent+https" {
		t.Errorf("Scheme() = %q", got)
	}
	if got := u.Authority(); got != "bob@example.com:8443" {
		t.Errorf("Authority() = %q", got)
	}
	segs, err := u.Segments()
	if err != nil || strings.Join(segs, "|") != "planning|gen-iti|" {
		t.Errorf("Segments() = %q, %v", segs, err)
	}
	if got := u.Capability(); got != "gen-iti" {
		t.Errorf("Capability() = %q", got)
	}
	q, err := u.QueryValues()
	if err != nil || strings.Join(q["city"], ",") != "Paris,Rio" || q.Get("x") != " " {
		t.Errorf("QueryValues() = %v, %v", q, err)
	}
	if u.Bare() || u.IsDID() {
		t.Errorf("Bare() = %v, IsDID() = %v, want false, false", u.Bare(), u.IsDID())
	}

	id, err := agenturi.Parse(adpID)
	if err != nil {
		t.Fatal(err)
	}
	if !id.Bare() || id.Capability() != "" || id.IsDID() {
		t.Errorf("ADP id: Bare() = %v, Capability() = %q, IsDID() = %v", id.Bare(), id.Capability(), id.IsDID())
	}
	if segs, err := id.Segments(); segs != nil || err != nil {
		t.Errorf("ADP id: Segments() = %q, %v", segs, err)
	}
	did, err := agenturi.Parse("agent://did:web:example.com/agent:researcher")
	if err != nil {
		t.Fatal(err)
	}
	if !did.IsDID() || did.Capability() != "agent:researcher" {
		t.Errorf("DID authority: IsDID() = %v, Capability() = %q", did.IsDID(), did.Capability())
	}
	if _, err := (agenturi.URI{Host: "h", Query: "a=%zz"}).QueryValues(); !errors.Is(err, agenturi.ErrSyntax) {
		t.Errorf("QueryValues on a bad query: %v, want ErrSyntax", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		adpID,
		"agent://example.com/planning/gen-iti?city=Paris",
		"agent+https://example.com/assistants/chatgpt?query=hello",
		"agent+local://examplelocalagent",
		"agent://did:web:example.com/agent:researcher/get-article?doi=..",
		"agent://user:pw@[2001:db8::1]:443/a/./../b?x#y",
		"AGENT://%41B/%7e/..",
		"agent://[v7.a:b]:0080",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := agenturi.Parse(s)
		if err != nil {
			if !errors.Is(err, agenturi.ErrSyntax) && !errors.Is(err, agenturi.ErrTooLong) {
				t.Fatalf("Parse(%q): error %v wraps no sentinel", s, err)
			}
			return
		}
		printed := u.String()
		again, err := agenturi.Parse(printed)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q fails: %v", s, printed, err)
		}
		if again != u {
			t.Fatalf("parse->String->parse not stable: %#v then %#v", u, again)
		}
		n := u.Normalize()
		nAgain, err := agenturi.Parse(n.String())
		if err != nil {
			t.Fatalf("normal form %q of %q does not parse: %v", n.String(), s, err)
		}
		if nAgain != n || n.Normalize() != n {
			t.Fatalf("Normalize not stable for %q: %#v, reparsed %#v, again %#v", s, n, nAgain, n.Normalize())
		}
	})
}
