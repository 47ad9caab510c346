package didwba

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gowebpki/jcs"
)

// TimestampLayout is the timestamp of a header this package writes: UTC,
// ISO 8601, to the second (the draft's "2024-12-05T12:34:56Z"). Any
// RFC 3339 time is read.
const TimestampLayout = "2006-01-02T15:04:05Z"

// Header is a DIDWba credential, the value of an Authorization header:
//
//	DIDWba did="did:wba:example.com%3A8800:user:alice", nonce="abc123",
//	  timestamp="2024-12-05T12:34:56Z", verification_method="key-1",
//	  signature="<base64url>"
//
// VerificationMethod is the fragment of the verification method in the
// client's DID document. Version is the reference implementation's v
// parameter: "" (the draft, which this package writes) or below "1.1"
// signs the service domain as "service"; "1.1" and later as "aud".
type Header struct {
	DID                string
	Nonce              string
	Timestamp          string
	VerificationMethod string
	Signature          string
	Version            string
}

// String is the header value, parameters in the draft's order.
func (h Header) String() string {
	var b strings.Builder
	b.WriteString(Scheme)
	sep := " "
	if h.Version != "" {
		fmt.Fprintf(&b, "%s%s=%s", sep, ParamVersion, quote(h.Version))
		sep = ", "
	}
	for _, p := range [][2]string{
		{ParamDID, h.DID}, {ParamNonce, h.Nonce}, {ParamTimestamp, h.Timestamp},
		{ParamVerificationMethod, h.VerificationMethod}, {ParamSignature, h.Signature},
	} {
		fmt.Fprintf(&b, "%s%s=%s", sep, p[0], quote(p[1]))
		sep = ", "
	}
	return b.String()
}

// serviceField is the member of the signed object that carries the
// service domain for this header's version.
func (h Header) serviceField() string {
	if v, err := strconv.ParseFloat(h.Version, 64); err == nil && v >= 1.1 {
		return "aud"
	}
	return "service"
}

// SigningInput is what the signature signs (the draft's "Signature
// Generation Process"): SHA-256 of the JCS (RFC 8785) form of
// {"nonce", "timestamp", "service", "did"}.
func (h Header) SigningInput(service string) ([]byte, error) {
	obj, err := json.Marshal(map[string]string{
		"nonce": h.Nonce, "timestamp": h.Timestamp, h.serviceField(): service, "did": h.DID,
	})
	if err != nil {
		return nil, err
	}
	canon, err := jcs.Transform(obj)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canon)
	return sum[:], nil
}

// Sign fills h.Signature: Ed25519 over SigningInput(service), in
// base64url without padding.
func (h *Header) Sign(key ed25519.PrivateKey, service string) error {
	in, err := h.SigningInput(service)
	if err != nil {
		return err
	}
	h.Signature = base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, in))
	return nil
}

// VerifySignature checks h.Signature with pub for service. A padded
// base64url signature is read too. The error wraps ErrSignature.
func (h Header) VerifySignature(pub ed25519.PublicKey, service string) error {
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(h.Signature, "="))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: not a base64url Ed25519 signature", ErrSignature)
	}
	in, err := h.SigningInput(service)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	if !ed25519.Verify(pub, in, sig) {
		return ErrSignature
	}
	return nil
}

// Time parses h.Timestamp (RFC 3339). The error wraps ErrTimestamp.
func (h Header) Time() (time.Time, error) {
	t, err := time.Parse(time.RFC3339, h.Timestamp)
	if err != nil {
		return t, fmt.Errorf("%w: %q is not an RFC 3339 time", ErrTimestamp, h.Timestamp)
	}
	return t, nil
}

// ParseHeader reads a DIDWba Authorization header value: the scheme
// (any case), then comma-separated auth-params (RFC 9110, 11.2) whose
// values are tokens or quoted strings. Every one of did, nonce,
// timestamp, verification_method and signature must be present once and
// non-empty; unknown parameters are ignored. The error wraps
// ErrBadHeader.
func ParseHeader(s string) (Header, error) {
	var h Header
	if len(s) > MaxHeaderSize {
		return h, fmt.Errorf("%w: longer than %d octets", ErrBadHeader, MaxHeaderSize)
	}
	scheme, rest, _ := strings.Cut(strings.TrimLeft(s, " \t"), " ")
	if !strings.EqualFold(scheme, Scheme) {
		return h, fmt.Errorf("%w: scheme is not %s", ErrBadHeader, Scheme)
	}
	params, err := parseParams(rest)
	if err != nil {
		return h, err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{ParamDID, &h.DID}, {ParamNonce, &h.Nonce}, {ParamTimestamp, &h.Timestamp},
		{ParamVerificationMethod, &h.VerificationMethod}, {ParamSignature, &h.Signature},
	} {
		v := params[f.name]
		if v == "" {
			return h, fmt.Errorf("%w: %s missing", ErrBadHeader, f.name)
		}
		*f.dst = v
	}
	h.Version = params[ParamVersion]
	if len(h.Nonce) > MaxNonceLength {
		return h, fmt.Errorf("%w: nonce longer than %d octets", ErrBadHeader, MaxNonceLength)
	}
	return h, nil
}

// parseParams reads auth-param *( OWS "," OWS auth-param ), names in
// lower case; a repeated name is an error.
func parseParams(s string) (map[string]string, error) {
	out := make(map[string]string, 6)
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return out, nil
		}
		n := 0
		for n < len(s) && isTokenChar(s[n]) {
			n++
		}
		name := strings.ToLower(s[:n])
		s = strings.TrimLeft(s[n:], " \t")
		if name == "" || !strings.HasPrefix(s, "=") {
			return nil, fmt.Errorf("%w: expected name=value", ErrBadHeader)
		}
		s = strings.TrimLeft(s[1:], " \t")
		var v string
		var err error
		if v, s, err = parseValue(s); err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%w: %s repeated", ErrBadHeader, name)
		}
		out[name] = v
		s = strings.TrimLeft(s, " \t")
		if s != "" && s[0] != ',' {
			return nil, fmt.Errorf("%w: expected ',' after %s", ErrBadHeader, name)
		}
	}
}

// parseValue reads a token or a quoted-string at the start of s.
func parseValue(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		n := 0
		for n < len(s) && isTokenChar(s[n]) {
			n++
		}
		if n == 0 {
			return "", s, fmt.Errorf("%w: empty value", ErrBadHeader)
		}
		return s[:n], s[n:], nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c == '\\' && i+1 < len(s):
			// A quoted-pair escapes HTAB, SP, VCHAR or obs-text only
			// (RFC 9110, 5.6.4), never a control character.
			if i++; isCtl(s[i]) {
				return "", s, fmt.Errorf("%w: control character in a value", ErrBadHeader)
			}
			b.WriteByte(s[i])
		case isCtl(c):
			return "", s, fmt.Errorf("%w: control character in a value", ErrBadHeader)
		default:
			b.WriteByte(c)
		}
	}
	return "", s, fmt.Errorf("%w: unterminated quoted string", ErrBadHeader)
}

// isCtl reports a control character other than HTAB (RFC 5234 CTL).
func isCtl(c byte) bool { return c < 0x20 && c != '\t' || c == 0x7f }

// isTokenChar reports a tchar (RFC 9110, 5.6.2).
func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// quote makes a quoted-string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
