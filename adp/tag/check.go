package tag

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen bounds a tag in octets: Check refuses longer tags and Clean cuts
// them, so hostile input cannot grow a table of tags with huge strings.
const MaxLen = 128

// Separator separates the segments of a hierarchical tag: "nlp/translation"
// lies below "nlp".
const Separator = '/'

// ErrSyntax reports a tag that does not follow the ADP §3.6 syntax.
var ErrSyntax = errors.New("tag: bad syntax")

// syntaxError is a message that matches ErrSyntax under errors.Is, so
// card validation can list the message alone.
type syntaxError string

func (e syntaxError) Error() string { return string(e) }

func (syntaxError) Is(target error) bool { return target == ErrSyntax }

func syntaxErrorf(format string, args ...any) error {
	return syntaxError(fmt.Sprintf(format, args...))
}

// Check reports whether tag follows the syntax of ADP §3.6: one or more
// segments separated by "/", each of letters, digits and "-", "_", ".",
// "+", "#"; at most MaxLen octets. ADP recommends lower-case ASCII; as a
// SHOULD, other letters (upper case and non-ASCII) are tolerated and
// matched case-insensitively (see Clean). Whitespace, control characters,
// empty segments and "*" (reserved for prefix queries such as "nlp/*")
// are refused. The error matches ErrSyntax (errors.Is).
func Check(tag string) error {
	if tag == "" {
		return syntaxErrorf("tag must not be empty")
	}
	if len(tag) > MaxLen {
		return syntaxErrorf("tag is %d octets, limit %d", len(tag), MaxLen)
	}
	segStart := true
	for _, r := range tag {
		switch {
		case r == Separator:
			if segStart {
				return syntaxErrorf("tag %q has an empty segment", tag)
			}
			segStart = true
			continue
		case r == '-' || r == '_' || r == '.' || r == '+' || r == '#':
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)):
		default:
			return syntaxErrorf("tag %q contains %q; use letters, digits, \"-\", \"_\", \".\", \"+\", \"#\" and \"/\" between segments", tag, r)
		}
		segStart = false
	}
	if segStart {
		return syntaxErrorf("tag %q ends with \"/\"", tag)
	}
	return nil
}

// Clean lower-cases a tag, maps spaces, tabs and underscores to hyphens,
// drops control characters, collapses runs of separators and trims them
// at both ends: " NLP//Text_Analysis/ " gives "nlp/text-analysis". Input
// beyond MaxLen octets is cut first. It returns "" for a tag with no
// usable characters. Clean accepts any input (queries are lenient); a
// tag that passes Check cleans to a tag that passes Check.
func Clean(raw string) string {
	if len(raw) > MaxLen {
		raw = raw[:MaxLen]
	}
	var b strings.Builder
	b.Grow(len(raw))
	lastSlash := true
	for _, r := range strings.ToLower(strings.TrimSpace(raw)) {
		switch {
		case r == Separator:
			if !lastSlash {
				b.WriteByte(Separator)
				lastSlash = true
			}
			continue
		case r == ' ' || r == '_' || r == '\t':
			r = '-'
		case r < 0x20 || r == 0x7f:
			continue
		}
		b.WriteRune(r)
		lastSlash = false
	}
	return strings.TrimSuffix(b.String(), string(Separator))
}

// Paths returns a canonical tag followed by each of its parent paths, most
// specific first: "nlp/text/sentiment" gives "nlp/text/sentiment",
// "nlp/text", "nlp". It returns nil for "".
func Paths(tag string) []string {
	if tag == "" {
		return nil
	}
	out := []string{tag}
	for {
		i := strings.LastIndexByte(tag, Separator)
		if i <= 0 {
			return out
		}
		tag = tag[:i]
		out = append(out, tag)
	}
}

// Covers reports whether a query for q is matched by an agent tag t (both
// canonical): the same tag, or t lies below q (the parent match of ADP
// §3.6.1: a query for "nlp" matches "nlp/translation").
func Covers(q, t string) bool {
	return t == q || (len(t) > len(q) && t[len(q)] == Separator && strings.HasPrefix(t, q))
}
