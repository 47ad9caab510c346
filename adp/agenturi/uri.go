package agenturi

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// URI is a parsed agent:// or agent+<protocol>:// URI. Components keep their
// percent-encoding as written; Normalize produces the canonical form.
type URI struct {
	// Protocol is the explicit transport binding of agent+<protocol>://,
	// in lower case (the scheme is case-insensitive); empty for agent://.
	Protocol string
	// UserInfo is the userinfo of the authority, without the "@".
	UserInfo string
	// Host is a registered name, an IPv4 address, a bracketed IP literal
	// ("[2001:db8::1]") or, for a DID authority, the whole DID.
	Host string
	// Port is the port, digits only, without the ":"; empty when absent.
	Port string
	// Path is empty or starts with "/" (path-abempty). The draft treats it
	// as opaque: a namespace or a capability.
	Path string
	// Query is the query without the "?"; an empty query is not kept.
	Query string
	// Fragment is the fragment without the "#"; an empty fragment is not kept.
	Fragment string
}

// Parse parses s as an agent URI following the ABNF of the agent:// draft,
// Section 4.2, with RFC 3986 components. It accepts the scheme in any case,
// bounds the input at MaxLength octets and rejects anything outside the
// grammar (spaces, non-ASCII octets, bad percent-encoding, an empty host, a
// port above MaxPort) with a *SyntaxError.
func Parse(s string) (URI, error) {
	var u URI
	if len(s) > MaxLength {
		return u, fmt.Errorf("%w: %d octets, limit %d", ErrTooLong, len(s), MaxLength)
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 || !strings.HasPrefix(s[colon:], "://") {
		return u, &SyntaxError{Component: "scheme", Offset: 0, Reason: `missing "://"`, scheme: true}
	}
	scheme := s[:colon]
	if len(scheme) < len(Scheme) || !strings.EqualFold(scheme[:len(Scheme)], Scheme) {
		return u, &SyntaxError{Component: "scheme", Offset: 0, Reason: fmt.Sprintf("scheme %q is not %q", scheme, Scheme), scheme: true}
	}
	if len(scheme) > len(Scheme) {
		if scheme[len(Scheme)] != '+' {
			return u, &SyntaxError{Component: "scheme", Offset: len(Scheme), Reason: fmt.Sprintf("scheme %q is not %q", scheme, Scheme), scheme: true}
		}
		proto := scheme[len(Scheme)+1:]
		off := len(Scheme) + 1
		if proto == "" {
			return u, &SyntaxError{Component: "protocol", Offset: off, Reason: `empty transport binding after "+"`}
		}
		if len(proto) > MaxProtocolLength {
			return u, &SyntaxError{Component: "protocol", Offset: off, Reason: fmt.Sprintf("longer than %d octets", MaxProtocolLength)}
		}
		for i := 0; i < len(proto); i++ {
			if c := proto[i]; !isAlpha(c) && !isDigit(c) && c != '-' {
				return u, &SyntaxError{Component: "protocol", Offset: off + i, Reason: fmt.Sprintf("character %q not allowed", c)}
			}
		}
		u.Protocol = strings.ToLower(proto)
	}

	start := colon + 3
	rest := s[start:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if err := u.parseAuthority(rest[:end], start); err != nil {
		return URI{}, err
	}
	off := start + end
	rest = rest[end:]

	if rest != "" && rest[0] == '/' {
		p := rest
		if i := strings.IndexAny(rest, "?#"); i >= 0 {
			p = rest[:i]
		}
		if err := check(p, off, "path", isPathChar); err != nil {
			return URI{}, err
		}
		u.Path = p
		off += len(p)
		rest = rest[len(p):]
	}
	if rest != "" && rest[0] == '?' {
		q := rest[1:]
		if i := strings.IndexByte(q, '#'); i >= 0 {
			q = q[:i]
		}
		if err := check(q, off+1, "query", isQueryChar); err != nil {
			return URI{}, err
		}
		u.Query = q
		off += 1 + len(q)
		rest = rest[1+len(q):]
	}
	if rest != "" && rest[0] == '#' {
		f := rest[1:]
		if err := check(f, off+1, "fragment", isQueryChar); err != nil {
			return URI{}, err
		}
		u.Fragment = f
	}
	return u, nil
}

// parseAuthority fills UserInfo, Host and Port from a; off is a's offset in
// the input, for error positions.
func (u *URI) parseAuthority(a string, off int) error {
	if at := strings.IndexByte(a, '@'); at >= 0 {
		if err := check(a[:at], off, "userinfo", isUserInfoChar); err != nil {
			return err
		}
		u.UserInfo = a[:at]
		a = a[at+1:]
		off += at + 1
	}
	if a == "" {
		return &SyntaxError{Component: "host", Offset: off, Reason: "empty host"}
	}
	switch {
	case a[0] == '[':
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return &SyntaxError{Component: "host", Offset: off, Reason: `IP literal without "]"`}
		}
		if err := checkIPLiteral(a[1:end], off+1); err != nil {
			return err
		}
		u.Host = a[:end+1]
		if tail := a[end+1:]; tail != "" {
			if tail[0] != ':' {
				return &SyntaxError{Component: "host", Offset: off + end + 1, Reason: `unexpected character after "]"`}
			}
			return u.parsePort(tail[1:], off+end+2)
		}
		return nil
	case isDIDAuthority(a):
		if err := checkDID(a, off); err != nil {
			return err
		}
		u.Host = a
		return nil
	}
	host := a
	if i := strings.IndexByte(a, ':'); i >= 0 {
		host = a[:i]
		if err := u.parsePort(a[i+1:], off+i+1); err != nil {
			return err
		}
	}
	if host == "" {
		return &SyntaxError{Component: "host", Offset: off, Reason: "empty host"}
	}
	if err := check(host, off, "host", isRegNameChar); err != nil {
		return err
	}
	u.Host = host
	return nil
}

func (u *URI) parsePort(p string, off int) error {
	for i := 0; i < len(p); i++ {
		if !isDigit(p[i]) {
			return &SyntaxError{Component: "port", Offset: off + i, Reason: fmt.Sprintf("character %q not allowed", p[i])}
		}
	}
	if p == "" {
		return nil // RFC 3986 allows "host:"; it means no port.
	}
	n, err := strconv.ParseUint(p, 10, 32)
	if err != nil || n > MaxPort {
		return &SyntaxError{Component: "port", Offset: off, Reason: fmt.Sprintf("port %q above %d", p, MaxPort)}
	}
	u.Port = p
	return nil
}

// isDIDAuthority reports whether a is written as a DID ("did:method:id")
// rather than as the host "did" followed by a port.
func isDIDAuthority(a string) bool {
	if !strings.HasPrefix(a, "did:") {
		return false
	}
	for i := len("did:"); i < len(a); i++ {
		if !isDigit(a[i]) {
			return true
		}
	}
	return false
}

// checkDID checks the DID Core syntax:
//
//	did = "did:" method-name ":" method-specific-id
//	method-name = 1*method-char ; %x61-7A / DIGIT
//	method-specific-id = *( *idchar ":" ) 1*idchar
//	idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
func checkDID(a string, off int) error {
	rest := a[len("did:"):]
	off += len("did:")
	colon := strings.IndexByte(rest, ':')
	if colon <= 0 {
		return &SyntaxError{Component: "did", Offset: off, Reason: "DID without method name or method-specific id"}
	}
	for i := 0; i < colon; i++ {
		if c := rest[i]; !(c >= 'a' && c <= 'z') && !isDigit(c) {
			return &SyntaxError{Component: "did", Offset: off + i, Reason: fmt.Sprintf("character %q not allowed in a DID method name", c)}
		}
	}
	id := rest[colon+1:]
	idOff := off + colon + 1
	if id == "" || id[len(id)-1] == ':' {
		return &SyntaxError{Component: "did", Offset: idOff + len(id), Reason: "method-specific id is empty or ends with \":\""}
	}
	return check(id, idOff, "did", func(c byte) bool {
		return isAlpha(c) || isDigit(c) || c == '.' || c == '-' || c == '_' || c == ':'
	})
}

// checkIPLiteral checks the inside of "[...]": an IPv6 address (without a
// zone) or an IPvFuture literal.
func checkIPLiteral(s string, off int) error {
	if s != "" && (s[0] == 'v' || s[0] == 'V') {
		dot := strings.IndexByte(s, '.')
		if dot < 2 || dot == len(s)-1 {
			return &SyntaxError{Component: "host", Offset: off, Reason: "malformed IPvFuture literal"}
		}
		for i := 1; i < dot; i++ {
			if !isHex(s[i]) {
				return &SyntaxError{Component: "host", Offset: off + i, Reason: "malformed IPvFuture version"}
			}
		}
		for i := dot + 1; i < len(s); i++ {
			if c := s[i]; !isUnreserved(c) && !isSubDelim(c) && c != ':' {
				return &SyntaxError{Component: "host", Offset: off + i, Reason: fmt.Sprintf("character %q not allowed in IPvFuture", c)}
			}
		}
		return nil
	}
	addr, err := netip.ParseAddr(s)
	if err != nil || !addr.Is6() || addr.Zone() != "" || strings.Contains(s, "%") {
		return &SyntaxError{Component: "host", Offset: off, Reason: fmt.Sprintf("%q is not an IPv6 address", s)}
	}
	return nil
}

// check verifies that s holds only characters allowed by ok, or
// well-formed percent-encodings.
func check(s string, off int, component string, ok func(byte) bool) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return &SyntaxError{Component: component, Offset: off + i, Reason: "malformed percent-encoding"}
			}
			i += 2
			continue
		}
		if !ok(c) {
			return &SyntaxError{Component: component, Offset: off + i, Reason: fmt.Sprintf("character %q not allowed", c)}
		}
	}
	return nil
}

// String returns the URI in the form Parse accepts: scheme in lower case,
// components as stored.
func (u URI) String() string {
	var b strings.Builder
	b.Grow(len(Scheme) + len(u.Protocol) + len(u.UserInfo) + len(u.Host) + len(u.Port) + len(u.Path) + len(u.Query) + len(u.Fragment) + 8)
	b.WriteString(u.Scheme())
	b.WriteString("://")
	b.WriteString(u.Authority())
	b.WriteString(u.Path)
	if u.Query != "" {
		b.WriteByte('?')
		b.WriteString(u.Query)
	}
	if u.Fragment != "" {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

// Scheme returns "agent" or "agent+<protocol>".
func (u URI) Scheme() string {
	if u.Protocol == "" {
		return Scheme
	}
	return Scheme + "+" + u.Protocol
}

// Authority returns [userinfo "@"] host [":" port].
func (u URI) Authority() string {
	a := u.Host
	if u.UserInfo != "" {
		a = u.UserInfo + "@" + a
	}
	if u.Port != "" {
		a += ":" + u.Port
	}
	return a
}

// IsDID reports whether the authority is a Decentralized Identifier.
func (u URI) IsDID() bool { return isDIDAuthority(u.Host) }

// Bare reports whether the URI is only scheme and host, with no transport
// binding, userinfo, port, path, query or fragment: the shape of an ADP
// agent id (agent://k51...).
func (u URI) Bare() bool {
	return u.Protocol == "" && u.UserInfo == "" && u.Port == "" && u.Path == "" && u.Query == "" && u.Fragment == ""
}

// Segments returns the percent-decoded path segments, without the leading
// empty segment: "/planning/gen-iti" gives ["planning", "gen-iti"].
func (u URI) Segments() ([]string, error) {
	if u.Path == "" {
		return nil, nil
	}
	raw := strings.Split(u.Path[1:], "/")
	out := make([]string, len(raw))
	for i, s := range raw {
		d, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("%w: path segment %d: %v", ErrSyntax, i, err)
		}
		out[i] = d
	}
	return out, nil
}

// Capability returns the last non-empty decoded path segment, the capability
// of agent://host/namespace/capability, or "" when the path has none.
func (u URI) Capability() string {
	segs, err := u.Segments()
	if err != nil {
		return ""
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i] != "" {
			return segs[i]
		}
	}
	return ""
}

// QueryValues decodes the query as key=value pairs (the form the draft
// recommends).
func (u URI) QueryValues() (url.Values, error) {
	v, err := url.ParseQuery(u.Query)
	if err != nil {
		return nil, fmt.Errorf("%w: query: %v", ErrSyntax, err)
	}
	return v, nil
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}
func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }
func isPChar(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@'
}
func isRegNameChar(c byte) bool  { return isUnreserved(c) || isSubDelim(c) }
func isUserInfoChar(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' }
func isPathChar(c byte) bool     { return isPChar(c) || c == '/' }
func isQueryChar(c byte) bool    { return isPChar(c) || c == '/' || c == '?' }
