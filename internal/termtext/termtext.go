package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

const (
	zwnj = '\u200c' // zero-width non-joiner
	zwj  = '\u200d' // zero-width joiner
)

// IsControl reports whether r is a C0 or C1 control character or DEL.
func IsControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f
}

// IsFormat reports whether r is an invisible format character (Unicode
// category Cf) or a line or paragraph separator (U+2028, U+2029).
func IsFormat(r rune) bool {
	return r >= 0xad && (r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r))
}

// Rule says which characters a string field may hold.
type Rule uint8

const (
	// Token is the rule of identifiers and single-line machine text (ids,
	// tool names, endpoint fields): no control or format character at all.
	Token Rule = iota
	// Line is the rule of single-line human text (names): no control
	// character, no format character but the zero-width joiners.
	Line
	// Text is the rule of multi-line human text (descriptions): as Line,
	// but newline and tab are allowed.
	Text
)

// Find returns the byte offset and value of the first rune s may not hold
// under the rule, and false when s holds none. A byte that is not UTF-8
// is reported as utf8.RuneError.
func (u Rule) Find(s string) (int, rune, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !u.allows(r, size) {
			return i, r, true
		}
		i += size
	}
	return 0, 0, false
}

// Problem returns nil when s follows the rule, or an error naming the
// first rune it may not hold and why, for a validation message.
func (u Rule) Problem(s string) error {
	_, r, bad := u.Find(s)
	if !bad {
		return nil
	}
	switch {
	case r == utf8.RuneError:
		return fmt.Errorf("must be UTF-8 text")
	case IsControl(r) && u == Text:
		return fmt.Errorf("must not contain control character %U; only newline and tab are allowed", r)
	case IsControl(r):
		return fmt.Errorf("must not contain control character %U", r)
	default:
		return fmt.Errorf("must not contain %U, an invisible format or bidirectional control character", r)
	}
}

func (u Rule) allows(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false
	case IsControl(r):
		return u == Text && (r == '\n' || r == '\t')
	case r == zwnj || r == zwj:
		return u != Token
	default:
		return !IsFormat(r)
	}
}

// escaped reports whether Escape rewrites r.
func escaped(r rune, size int) bool {
	return r == utf8.RuneError && size <= 1 || IsControl(r) || IsFormat(r) && r != zwnj && r != zwj
}

// Escape returns s with every control character, format character (but
// the zero-width joiners), line or paragraph separator and non-UTF-8 byte
// written as a Go escape: "\n", "\t", "\r", "\x1b", "\u202e", "\U000e0001";
// a byte that is not UTF-8 becomes "\xff". The result is one line of
// printable text, safe as a table cell. Backslashes are left as they are:
// Escape is for display, not a reversible encoding.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r, size) {
			writeEscape(&b, r, s[i])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func writeEscape(b *strings.Builder, r rune, first byte) {
	switch {
	case r == utf8.RuneError:
		fmt.Fprintf(b, `\x%02x`, first)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// EscapeLines escapes each line of s as Escape does and keeps the line
// breaks: for messages of several lines, such as a list of validation
// problems.
func EscapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// EscapeJSON returns the JSON text b with every control or format
// character (as Escape chooses them) inside its strings written as a
// \u escape, so that the document denotes the same value and prints as
// plain text. encoding/json already escapes C0 controls, U+2028 and
// U+2029 when it marshals, but not C1 controls or the other format
// characters, and a document passed through (a card's signed bytes, an
// agent's reply) may hold any of them raw. A byte that is not UTF-8
// becomes \ufffd, as a JSON decoder reads it. Valid JSON holds raw
// controls only as whitespace between tokens, which is left alone.
func EscapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && escaped(r, size) {
			break
		}
		i += size
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r < 0x80 || !escaped(r, size):
			out = append(out, b[i:i+size]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}
