package didwba

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ID is a parsed did:wba DID (did:wba method, 2.2): a domain name, an
// optional port, and optional path segments.
//
//	did:wba:example.com                 https://example.com/.well-known/did.json
//	did:wba:example.com%3A8443:a:b      https://example.com:8443/a/b/did.json
type ID struct {
	Host string   // a DNS name in lower case, never an IP address
	Port int      // 0 when absent
	Path []string // path segments, possibly none
}

// FromDomain makes the DID of a domain as an operator writes it:
// "example.com", "example.com:8443", "example.com/agents/alice" or
// "example.com:8443/agents/alice" (a leading "https://" and a trailing
// "/" are allowed). The port's colon is percent-encoded and the path's
// slashes become colons, as the method asks.
func FromDomain(domain string) (ID, error) {
	s := strings.TrimPrefix(strings.TrimSpace(domain), "https://")
	s = strings.TrimSuffix(s, "/")
	hostport, path, _ := strings.Cut(s, "/")
	host, port := hostport, 0
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return ID{}, fmt.Errorf("%w: port %q", ErrBadDID, p)
		}
		host, port = h, n
	}
	var segs []string
	if path != "" {
		segs = strings.Split(path, "/")
	}
	id := ID{Host: strings.ToLower(host), Port: port, Path: segs}
	return id, id.check()
}

// Parse reads a did:wba DID. The port's colon must be percent-encoded
// (%3A); the host is compared in lower case.
func Parse(did string) (ID, error) {
	if len(did) > MaxDIDLength {
		return ID{}, fmt.Errorf("%w: longer than %d octets", ErrBadDID, MaxDIDLength)
	}
	rest, ok := strings.CutPrefix(did, Prefix)
	if !ok {
		return ID{}, fmt.Errorf("%w: %q does not start with %s", ErrBadDID, did, Prefix)
	}
	parts := strings.Split(rest, ":")
	id := ID{Host: parts[0], Path: parts[1:]}
	if i := strings.Index(strings.ToUpper(id.Host), "%3A"); i >= 0 {
		p := id.Host[i+3:]
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
			return ID{}, fmt.Errorf("%w: port %q", ErrBadDID, p)
		}
		id.Host, id.Port = id.Host[:i], n
	}
	id.Host = strings.ToLower(id.Host)
	if len(id.Path) == 0 {
		id.Path = nil
	}
	return id, id.check()
}

// check reports why id cannot be a DID: a host that is not a fully
// qualified DNS name (RFC 1035/1123, so not "localhost"), an IP address,
// or a path segment outside the method's
// ABNF (1*(ALPHA / DIGIT / "-" / "_" / ".")) or made of dots only.
func (id ID) check() error {
	if net.ParseIP(strings.Trim(id.Host, "[]")) != nil {
		return fmt.Errorf("%w: %q is an IP address; the method needs a domain name", ErrBadDID, id.Host)
	}
	if !isDomainName(id.Host) {
		return fmt.Errorf("%w: %q is not a domain name", ErrBadDID, id.Host)
	}
	for _, s := range id.Path {
		if !isSegment(s) {
			return fmt.Errorf("%w: path segment %q (letters, digits, '-', '_' and '.' only)", ErrBadDID, s)
		}
	}
	return nil
}

// String is the DID.
func (id ID) String() string {
	var b strings.Builder
	b.WriteString(Prefix)
	b.WriteString(id.Host)
	if id.Port != 0 {
		b.WriteString("%3A")
		b.WriteString(strconv.Itoa(id.Port))
	}
	for _, s := range id.Path {
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// Origin is the https origin of the DID's domain: https://host[:port].
func (id ID) Origin() string {
	if id.Port != 0 {
		return "https://" + net.JoinHostPort(id.Host, strconv.Itoa(id.Port))
	}
	return "https://" + id.Host
}

// DocumentPath is the URL path of the DID document (did:wba method,
// 2.5.2): /.well-known/did.json without path segments, /a/b/did.json
// with segments a and b.
func (id ID) DocumentPath() string {
	if len(id.Path) == 0 {
		return WellKnownPath
	}
	return "/" + strings.Join(id.Path, "/") + "/" + DocumentFile
}

// DocumentURL is the https URL the DID resolves to.
func (id ID) DocumentURL() string { return id.Origin() + id.DocumentPath() }

// ToURL returns the URL the DID did resolves to.
func ToURL(did string) (string, error) {
	id, err := Parse(did)
	if err != nil {
		return "", err
	}
	return id.DocumentURL(), nil
}

func isDomainName(s string) bool {
	if s == "" || len(s) > 253 || !strings.Contains(s, ".") {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func isSegment(s string) bool {
	if strings.Trim(s, ".") == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
