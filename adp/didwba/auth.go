package didwba

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// Authenticator is the service side of DIDWba authentication: it
// verifies the Authorization header of a request, DIDWba or Bearer, and
// issues access tokens signed by the service's key. Safe for concurrent
// use; it owns no goroutine.
type Authenticator struct {
	resolver *Resolver
	key      ed25519.PrivateKey
	pub      ed25519.PublicKey
	service  string
	window   time.Duration
	tokenTTL time.Duration
	now      func() time.Time
	allow    func(did string) bool
	nonces   *nonceCache
	log      *slog.Logger
}

// AuthOption configures an Authenticator.
type AuthOption func(*authConfig)

type authConfig struct {
	Authenticator
	nonceCacheSize int
}

// WithResolver resolves client DIDs through r (default NewResolver()).
func WithResolver(r *Resolver) AuthOption { return func(c *authConfig) { c.resolver = r } }

// WithServiceDomain fixes the service domain the signatures and tokens
// name (default: the host of each request, without its port).
func WithServiceDomain(d string) AuthOption {
	return func(c *authConfig) { c.service = strings.ToLower(d) }
}

// WithTimestampWindow sets how far a timestamp may be from the clock,
// either way (default DefaultTimestampWindow).
func WithTimestampWindow(d time.Duration) AuthOption { return func(c *authConfig) { c.window = d } }

// WithNonceCacheSize bounds the replay cache (default
// DefaultNonceCacheSize).
func WithNonceCacheSize(n int) AuthOption { return func(c *authConfig) { c.nonceCacheSize = n } }

// WithTokenTTL sets the lifetime of access tokens (default
// DefaultTokenTTL).
func WithTokenTTL(d time.Duration) AuthOption { return func(c *authConfig) { c.tokenTTL = d } }

// WithClock sets the time source (default time.Now).
func WithClock(now func() time.Time) AuthOption { return func(c *authConfig) { c.now = now } }

// WithAllow admits only the DIDs allow returns true for; others are
// refused with forbidden_did and status 403 once authenticated (default:
// every DID).
func WithAllow(allow func(did string) bool) AuthOption {
	return func(c *authConfig) { c.allow = allow }
}

// WithLogger logs refused requests at Debug (default: discard).
func WithLogger(l *slog.Logger) AuthOption { return func(c *authConfig) { c.log = l } }

// NewAuthenticator returns an Authenticator whose tokens key signs.
func NewAuthenticator(key ed25519.PrivateKey, opts ...AuthOption) *Authenticator {
	c := authConfig{
		Authenticator: Authenticator{
			key: key, window: DefaultTimestampWindow, tokenTTL: DefaultTokenTTL,
			now: time.Now, allow: func(string) bool { return true }, log: slog.New(slog.DiscardHandler),
		},
		nonceCacheSize: DefaultNonceCacheSize,
	}
	for _, o := range opts {
		o(&c)
	}
	a := c.Authenticator
	if a.resolver == nil {
		a.resolver = NewResolver()
	}
	a.pub = key.Public().(ed25519.PublicKey)
	a.nonces = newNonceCache(max(c.nonceCacheSize, 1))
	return &a
}

// Result is a successful authentication: the client's DID and, after a
// DIDWba header, the access token issued for it ("" after a Bearer one).
type Result struct {
	DID   string
	Token string
}

// Authenticate verifies the Authorization header of r. A Bearer token
// must be one this Authenticator issued, unexpired, for this service. A
// DIDWba header goes through the draft's "Service Verification", each
// step cheaper than the next:
//
//  1. the header parses and its did is a did:wba DID;
//  2. the timestamp is within the window of the clock;
//  3. the nonce was not accepted before for this DID;
//  4. the DID document resolves (cached) and lists verification_method
//     under authentication with an Ed25519 key;
//  5. the signature verifies with that key for this service's domain;
//  6. the DID is allowed (WithAllow);
//  7. the nonce is recorded, and a token issued.
//
// Errors wrap the package's sentinels; Code maps them to the draft's
// error codes.
func (a *Authenticator) Authenticate(ctx context.Context, r *http.Request) (Result, error) {
	service := a.serviceOf(r)
	auth := r.Header.Get("Authorization")
	scheme, cred, _ := strings.Cut(strings.TrimSpace(auth), " ")
	now := a.now()
	switch {
	case strings.EqualFold(scheme, BearerScheme):
		c, err := VerifyToken(a.pub, strings.TrimSpace(cred), service, now, a.window)
		if err != nil {
			return Result{}, err
		}
		if !a.allow(c.Subject) {
			return Result{}, ErrForbidden
		}
		return Result{DID: c.Subject}, nil
	case !strings.EqualFold(scheme, Scheme):
		return Result{}, ErrNoCredentials
	}
	h, err := ParseHeader(auth) // 1
	if err != nil {
		return Result{}, err
	}
	if _, err := Parse(h.DID); err != nil {
		return Result{}, err
	}
	ts, err := h.Time() // 2
	if err != nil {
		return Result{}, err
	}
	if d := now.Sub(ts); d > a.window || d < -a.window {
		return Result{}, fmt.Errorf("%w: %s is %s from the service's clock", ErrTimestamp, h.Timestamp, d.Round(time.Second))
	}
	key := nonceKey(h.DID, h.Nonce)
	if err := a.nonces.check(key, ts); err != nil { // 3
		return Result{}, err
	}
	doc, err := a.resolver.Resolve(ctx, h.DID) // 4
	if err != nil {
		return Result{}, err
	}
	pub, err := doc.AuthenticationKey(h.VerificationMethod)
	if err != nil {
		return Result{}, err
	}
	if err := h.VerifySignature(pub, service); err != nil { // 5
		return Result{}, err
	}
	if !a.allow(h.DID) { // 6
		return Result{}, ErrForbidden
	}
	if err := a.nonces.add(key, ts, now.Add(-a.window)); err != nil { // 7
		return Result{}, err
	}
	tok, err := IssueToken(a.key, Claims{Subject: h.DID, Audience: service, IssuedAt: now.Unix(), ExpiresAt: now.Add(a.tokenTTL).Unix()})
	if err != nil {
		return Result{}, err
	}
	return Result{DID: h.DID, Token: tok}, nil
}

// serviceOf is the service domain of r: the configured one, or the
// request's host without its port.
func (a *Authenticator) serviceOf(r *http.Request) string {
	if a.service != "" {
		return a.service
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(host)
}

// nonceKey is what the replay cache keeps of a DID and nonce: a
// SHA-256, so that an entry costs 32 octets whatever their length.
func nonceKey(did, nonce string) string {
	sum := sha256.Sum256([]byte(did + "\x00" + nonce))
	return string(sum[:])
}

type didKey struct{}

// DIDFrom returns the DID Middleware authenticated the request as.
func DIDFrom(ctx context.Context) (string, bool) {
	did, ok := ctx.Value(didKey{}).(string)
	return did, ok
}

// Middleware lets through the requests Authenticate accepts, with the
// client's DID in their context (DIDFrom); after a DIDWba header the
// response carries the new token as "Authorization: Bearer <token>", as
// the draft asks. Other requests are answered 401 (403 for a DID
// WithAllow refuses) with a WWW-Authenticate challenge: Bearer
// error="<code>", error_description="..." after a failed authentication,
// the DIDWba and Bearer schemes when there was none.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := a.Authenticate(r.Context(), r)
		if err != nil {
			a.log.Debug("didwba: request refused", "err", err)
			WriteChallenge(w, err)
			return
		}
		if res.Token != "" {
			w.Header().Set("Authorization", BearerScheme+" "+res.Token)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), didKey{}, res.DID)))
	})
}

// descriptions are the error_description of each code (the draft's
// wording).
var descriptions = map[string]string{
	CodeInvalidRequest:            "Request format error, missing required fields, or contains unsupported parameters.",
	CodeInvalidNonce:              "Nonce has already been used. Please provide a new nonce.",
	CodeInvalidTimestamp:          "Timestamp is out of range.",
	CodeInvalidDID:                "DID format error, or unable to find corresponding DID document.",
	CodeInvalidSignature:          "Signature verification failed.",
	CodeInvalidVerificationMethod: "Unable to find corresponding public key based on verification method.",
	CodeInvalidAccessToken:        "Access token verification failed.",
	CodeForbiddenDID:              "DID lacks permission to access server resources.",
}

// WriteChallenge answers an authentication failure: 401, or 403 for
// ErrForbidden, with the WWW-Authenticate header Middleware describes
// and the code and description as a JSON body.
func WriteChallenge(w http.ResponseWriter, err error) {
	code := Code(err)
	status := http.StatusUnauthorized
	if errors.Is(err, ErrForbidden) {
		status = http.StatusForbidden
	}
	h := w.Header()
	if code == "" {
		h.Add("WWW-Authenticate", Scheme)
		h.Add("WWW-Authenticate", BearerScheme)
		code = CodeInvalidRequest
	} else {
		h.Set("WWW-Authenticate", fmt.Sprintf("%s error=%s, error_description=%s", BearerScheme, quote(code), quote(descriptions[code])))
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":%s,"error_description":%s}`+"\n", quote(code), quote(descriptions[code]))
}
