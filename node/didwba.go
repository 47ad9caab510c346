package node

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/adp/didwba"
)

// domainCheckTimeout bounds how long a card view waits for the DID
// document of a did:wba card; past it the check reads "pending" and
// is tried again at the next view.
const domainCheckTimeout = 3 * time.Second

// Domain check results (httpapi.CardView.DomainVerified).
const (
	DomainVerified   = "verified"
	DomainPending    = "pending"
	domainUnverified = "unverified: "
)

// didIdentity is the node's did:wba identity (Config.DIDWbaDomain), the
// resolver of the domain checks of cards and the DIDWba authenticator of
// the node's public endpoints; both share one cache and one bound on
// concurrent fetches.
type didIdentity struct {
	id       didwba.ID // zero without Config.DIDWbaDomain
	doc      http.Handler
	signer   *didwba.Signer
	resolver *didwba.Resolver
	auth     *didwba.Authenticator
}

// newDIDIdentity builds the DID document of sk for domain ("" = no
// did:wba identity). Its AgentDescription service is the agent's ANP
// description at the same origin.
//
// The resolver fetches DID documents through its own guarded client:
// like A2A endpoints, only public addresses unless allowPrivate
// (Config.A2AAllowPrivate), never link-local or cloud metadata ones.
func newDIDIdentity(domain string, sk crypto.PrivKey, agentID string, allowPrivate bool, log *slog.Logger) (didIdentity, error) {
	d := didIdentity{resolver: didwba.NewResolver(didwba.WithPrivateAddresses(allowPrivate))}
	raw, err := sk.Raw()
	if err != nil || len(raw) != ed25519.PrivateKeySize {
		return d, fmt.Errorf("%w: the key is not Ed25519", ErrBadIdentity)
	}
	key := ed25519.PrivateKey(raw)
	d.auth = didwba.NewAuthenticator(key, didwba.WithResolver(d.resolver), didwba.WithLogger(log))
	if domain == "" {
		return d, nil
	}
	id, err := didwba.FromDomain(domain)
	if err != nil {
		return d, fmt.Errorf("%w: did_wba_domain: %v", ErrInvalidConfig, err)
	}
	desc, err := bridge.ANPDescriptionPath(agentID)
	if err != nil {
		return d, err
	}
	doc, err := didwba.NewDocument(id.String(), key.Public().(ed25519.PublicKey), id.Origin()+desc)
	if err != nil {
		return d, err
	}
	if d.doc, err = didwba.DocumentHandler(doc); err != nil {
		return d, err
	}
	d.id = id
	d.signer = &didwba.Signer{DID: id.String(), Key: key}
	return d, nil
}

// DIDDocument returns the path at which the node's DID document must be
// served for its did:wba DID to resolve (the DID's DocumentPath) and the
// handler that serves it; "" and nil without Config.DIDWbaDomain. The
// local API mounts it; a public HTTP server mounts the same.
func (n *Node) DIDDocument() (string, http.Handler) {
	if n.did.doc == nil {
		return "", nil
	}
	return n.did.id.DocumentPath(), n.did.doc
}

// DIDWbaAuthenticator is the DIDWba authentication of the node's public
// endpoints (ANP, A2A): wrap a handler in its Middleware to require a
// DIDWba header or the access token it issued, signed by the node's key
// for the domain each request names. It resolves client DIDs through the
// same cache and bound as the domain checks of cards.
func (n *Node) DIDWbaAuthenticator() *didwba.Authenticator { return n.did.auth }

// DID is the node's did:wba DID, "" without Config.DIDWbaDomain.
func (n *Node) DID() string {
	if n.did.signer == nil {
		return ""
	}
	return n.did.signer.DID
}

// ANPClient returns a copy of base (nil: a zero http.Client) that
// authenticates as the node's did:wba DID to the services it calls (a
// DIDWba Authorization header, then the access token they return);
// without Config.DIDWbaDomain it is base itself, or a zero client.
func (n *Node) ANPClient(base *http.Client) *http.Client {
	if n.did.signer == nil {
		if base == nil {
			base = &http.Client{}
		}
		return base
	}
	return didwba.NewClient(n.did.signer, base)
}

// shapeDID sets the card's did: the did:wba DID when the node has one,
// the key's did:key when a did:wba DID was set before and no longer is.
func (n *Node) shapeDID(c *adp.Card) {
	if did := n.DID(); did != "" {
		c.DID = did
		return
	}
	if strings.HasPrefix(c.DID, didwba.Prefix) {
		if k, err := adp.DIDKey(n.sk.GetPublic()); err == nil {
			c.DID = k
		}
	}
}

// DomainVerified is the domain check of a card whose did is a did:wba
// DID: DomainVerified once its DID document resolves and lists the key of
// the card's id, "unverified: <why>" when it does not, DomainPending when
// the document could not be had in time (resolutions are bounded in
// number; a later call tries again). "" for a card
// without a did:wba DID. Documents are cached (didwba.DefaultCacheTTL).
func (n *Node) DomainVerified(ctx context.Context, c *adp.Card) string {
	if c == nil || !strings.HasPrefix(c.DID, didwba.Prefix) {
		return ""
	}
	pk, err := adp.PublicKeyFromAgentID(c.ID)
	if err != nil {
		return domainUnverified + "the card's id names no Ed25519 key"
	}
	raw, err := pk.Raw() // an Ed25519 key's 32 octets: it cannot fail
	if err != nil {
		return domainUnverified + "the card's id names no Ed25519 key"
	}
	ctx, cancel := context.WithTimeout(ctx, domainCheckTimeout)
	defer cancel()
	err = n.did.resolver.VerifyKey(ctx, c.DID, raw)
	switch {
	case err == nil:
		return DomainVerified
	case errors.Is(err, didwba.ErrBusy) || ctx.Err() != nil:
		return DomainPending
	}
	for _, e := range []error{didwba.ErrNoKey, didwba.ErrBadDID, didwba.ErrTooLarge, didwba.ErrBadDocument, didwba.ErrResolve} {
		if errors.Is(err, e) {
			return domainUnverified + strings.TrimPrefix(e.Error(), "didwba: ")
		}
	}
	return domainUnverified + "DID document not resolved"
}
