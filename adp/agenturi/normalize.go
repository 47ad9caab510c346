package agenturi

import (
	"strings"
)

// Normalize returns the syntax-based normal form of u (RFC 3986, Section
// 6.2.2), so that equivalent URIs compare equal as strings:
//
//   - the scheme and transport binding are lower case (Parse already does
//     this);
//   - percent-encoded unreserved characters are decoded and the hex digits of
//     the remaining percent-encodings are upper case, in every component;
//   - a registered-name or IP-literal host is lower case; a DID authority is
//     left as it is, because DID method-specific ids are case-sensitive
//     (did:key is base58);
//   - leading zeros of the port are dropped;
//   - "." and ".." segments are removed from the path (RFC 3986, 5.2.4).
//
// Lower-casing the host destroys a base58 peer ID (agent://12D3KooW...):
// convert such ids to the base36 form first. Normalize is idempotent.
func (u URI) Normalize() URI {
	n := URI{Protocol: strings.ToLower(u.Protocol)}
	n.UserInfo = normPct(u.UserInfo, false)
	if u.IsDID() {
		n.Host = u.Host
	} else {
		n.Host = normPct(u.Host, true)
	}
	n.Port = strings.TrimLeft(u.Port, "0")
	if n.Port == "" && u.Port != "" {
		n.Port = "0"
	}
	n.Path = removeDotSegments(normPct(u.Path, false))
	n.Query = normPct(u.Query, false)
	n.Fragment = normPct(u.Fragment, false)
	return n
}

// normPct decodes percent-encoded unreserved characters, upper-cases the hex
// digits of the other percent-encodings and, when lower is set, lower-cases
// every other letter.
func normPct(s string, lower bool) string {
	if !strings.ContainsRune(s, '%') && (!lower || s == strings.ToLower(s)) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(d) {
				if lower {
					d = toLower(d)
				}
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(toUpper(s[i+1]))
				b.WriteByte(toUpper(s[i+2]))
			}
			i += 2
			continue
		}
		if lower {
			c = toLower(c)
		}
		b.WriteByte(c)
	}
	return b.String()
}

// removeDotSegments implements RFC 3986, Section 5.2.4, on a path-abempty.
func removeDotSegments(p string) string {
	if p == "" || !strings.Contains(p, ".") {
		return p
	}
	in := p
	var out []string // output segments, each with its leading "/"
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			i := strings.IndexByte(in[1:], '/')
			if i < 0 {
				out = append(out, in)
				in = ""
			} else {
				out = append(out, in[:i+1])
				in = in[i+1:]
			}
		}
	}
	return strings.Join(out, "")
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func toLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
