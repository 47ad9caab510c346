package mcpagent

import (
	"fmt"
	"strings"
)

// SplitCommand splits a command line into words the way a POSIX shell
// does for plain words: blanks separate words, single quotes keep
// everything, double quotes keep everything but a backslash before ",
// \ or $, and a backslash outside quotes escapes the next character. No
// expansion is done. It is how --agent-mcp-command "npx -y server" is
// read.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has begun (an empty quoted word counts)
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`, rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("%w: trailing backslash", ErrBadCommand)
			}
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%w: unterminated %c quote", ErrBadCommand, quote)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrBadCommand)
	}
	return words, nil
}
