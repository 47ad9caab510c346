package didwba

import (
	"context"
	"crypto/ed25519"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Verdicts of Identity.CheckKey, the "domain-verified" check of a card
// whose did is a did:wba DID.
const (
	// Verified: the DID document resolves and lists the key.
	Verified = "verified"
	// Pending: the document could not be had in time (resolutions are
	// bounded in number); a later check tries again.
	Pending = "pending"
	// UnverifiedPrefix starts every other verdict, followed by why.
	UnverifiedPrefix = "unverified: "
)

// CheckTimeout bounds how long CheckKey waits for a DID document.
const CheckTimeout = 3 * time.Second

// Identity is an agent's did:wba side: its own DID and DID document when
// it has a domain, the Signer its outbound requests authenticate with,
// the Resolver of other agents' DIDs and the Authenticator of its own
// endpoints, which resolves callers' DIDs through the same Resolver (one
// cache, one bound on concurrent fetches). Safe for concurrent use.
type Identity struct {
	id       ID // zero without a domain
	doc      http.Handler
	signer   *Signer
	resolver *Resolver
	auth     *Authenticator
}

// IdentityOption configures NewIdentity.
type IdentityOption func(*identityConfig)

type identityConfig struct {
	resolver []ResolverOption
	log      *slog.Logger
}

// WithResolverOptions passes opts to the identity's Resolver.
func WithResolverOptions(opts ...ResolverOption) IdentityOption {
	return func(c *identityConfig) { c.resolver = append(c.resolver, opts...) }
}

// WithIdentityLogger sets the Authenticator's logger.
func WithIdentityLogger(l *slog.Logger) IdentityOption {
	return func(c *identityConfig) { c.log = l }
}

// NewIdentity returns the identity of key. With a domain ("" for none)
// it has the DID FromDomain(domain) and that DID's document, whose
// AgentDescription service is descriptionPath at the DID's origin (the
// agent's ANP description). A domain that cannot make a DID is ErrBadDID.
func NewIdentity(key ed25519.PrivateKey, domain, descriptionPath string, opts ...IdentityOption) (*Identity, error) {
	var cfg identityConfig
	for _, o := range opts {
		o(&cfg)
	}
	authOpts := []AuthOption{}
	if cfg.log != nil {
		authOpts = append(authOpts, WithLogger(cfg.log))
	}
	d := &Identity{resolver: NewResolver(cfg.resolver...)}
	d.auth = NewAuthenticator(key, append(authOpts, WithResolver(d.resolver))...)
	if domain == "" {
		return d, nil
	}
	id, err := FromDomain(domain)
	if err != nil {
		return nil, err
	}
	doc, err := NewDocument(id.String(), key.Public().(ed25519.PublicKey), id.Origin()+descriptionPath)
	if err != nil {
		return nil, err
	}
	if d.doc, err = DocumentHandler(doc); err != nil {
		return nil, err
	}
	d.id = id
	d.signer = &Signer{DID: id.String(), Key: key}
	return d, nil
}

// DID is the identity's DID, "" without a domain.
func (d *Identity) DID() string {
	if d.signer == nil {
		return ""
	}
	return d.signer.DID
}

// Document returns the path at which the DID document must be served for
// the DID to resolve (ID.DocumentPath) and the handler that serves it; ""
// and nil without a domain.
func (d *Identity) Document() (string, http.Handler) {
	if d.doc == nil {
		return "", nil
	}
	return d.id.DocumentPath(), d.doc
}

// Client returns a copy of base (nil: a zero http.Client) that
// authenticates as the DID to the services it calls (NewClient); without
// a domain it is base itself, or a zero client.
func (d *Identity) Client(base *http.Client) *http.Client {
	if d.signer == nil {
		if base == nil {
			base = &http.Client{}
		}
		return base
	}
	return NewClient(d.signer, base)
}

// Authenticator is the DIDWba authentication of the identity's own
// endpoints (Authenticator.Middleware).
func (d *Identity) Authenticator() *Authenticator { return d.auth }

// CheckKey is the domain check of a key that claims the did:wba DID did:
// Verified when its document resolves and lists pub, Pending when the
// document could not be had within CheckTimeout or the bound on
// resolutions was reached, and UnverifiedPrefix followed by why
// otherwise. Documents are cached (DefaultCacheTTL).
func (d *Identity) CheckKey(ctx context.Context, did string, pub ed25519.PublicKey) string {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	err := d.resolver.VerifyKey(ctx, did, pub)
	switch {
	case err == nil:
		return Verified
	case errors.Is(err, ErrBusy) || ctx.Err() != nil:
		return Pending
	}
	for _, e := range []error{ErrNoKey, ErrBadDID, ErrTooLarge, ErrBadDocument, ErrResolve} {
		if errors.Is(err, e) {
			return UnverifiedPrefix + strings.TrimPrefix(e.Error(), "didwba: ")
		}
	}
	return UnverifiedPrefix + "DID document not resolved"
}
