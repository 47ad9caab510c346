package didwba

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Access tokens (the draft's "Authentication Success Return Access
// Token"): a JWT (RFC 7519) signed with EdDSA (RFC 8037) by the service's
// Ed25519 key, whose claims are the authenticated DID (sub), the service
// domain (aud), and the issue and expiry times (iat, exp, NumericDate).
//
// The JWT is built here with crypto/ed25519 rather than a JWT library
// (github.com/golang-jwt/jwt/v5 would be the one, and is not a
// dependency of the module): one fixed header, four claims and one
// algorithm are less code than a dependency's configuration, and a
// verifier that accepts exactly one header cannot be talked into "none"
// or HMAC-with-the-public-key.

// tokenHeader is the JOSE header of every token, base64url encoded.
var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","typ":"JWT"}`))

// Claims are the claims of an access token.
type Claims struct {
	Subject   string `json:"sub"`
	Audience  string `json:"aud"`
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
}

// IssueToken signs claims with key.
func IssueToken(key ed25519.PrivateKey, c Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	in := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	return in + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, []byte(in))), nil
}

// VerifyToken checks a token signed by pub for audience at now: the
// header must be exactly the one IssueToken writes, the signature must
// verify, now must be before exp and not before iat (with skew), and aud
// must be audience. The error wraps ErrToken.
func VerifyToken(pub ed25519.PublicKey, token, audience string, now time.Time, skew time.Duration) (Claims, error) {
	var c Claims
	if len(token) > MaxTokenSize {
		return c, fmt.Errorf("%w: longer than %d octets", ErrToken, MaxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != tokenHeader {
		return c, fmt.Errorf("%w: not an EdDSA JWT", ErrToken)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return c, fmt.Errorf("%w: signature does not verify", ErrToken)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(payload, &c) != nil {
		return c, fmt.Errorf("%w: claims are not a JSON object", ErrToken)
	}
	switch {
	case c.Subject == "":
		return c, fmt.Errorf("%w: no subject", ErrToken)
	case c.Audience != audience:
		return c, fmt.Errorf("%w: audience %q, want %q", ErrToken, c.Audience, audience)
	case !now.Before(time.Unix(c.ExpiresAt, 0)):
		return c, fmt.Errorf("%w: expired", ErrToken)
	case now.Add(skew).Before(time.Unix(c.IssuedAt, 0)):
		return c, fmt.Errorf("%w: issued in the future", ErrToken)
	}
	return c, nil
}
