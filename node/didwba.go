package node

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/adp/didwba"
)

// Domain check results (httpapi.CardView.DomainVerified).
const (
	DomainVerified = didwba.Verified
	DomainPending  = didwba.Pending
)

// newDIDIdentity is the node's did:wba identity (package adp/didwba): its
// DID and DID document when domain is set (Config.DIDWbaDomain), whose
// AgentDescription service is the agent's ANP description at the same
// origin, and the resolver of the domain checks of cards, shared with
// the DIDWba authentication of the node's public endpoints.
//
// The resolver fetches DID documents through its own guarded client:
// like A2A endpoints, only public addresses unless allowPrivate
// (Config.A2AAllowPrivate), never link-local or cloud metadata ones.
func newDIDIdentity(domain string, sk crypto.PrivKey, agentID string, allowPrivate bool, log *slog.Logger, opts ...didwba.ResolverOption) (*didwba.Identity, error) {
	raw, err := sk.Raw()
	if err != nil || len(raw) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: the key is not Ed25519", ErrBadIdentity)
	}
	var desc string
	if domain != "" {
		if desc, err = bridge.ANPDescriptionPath(agentID); err != nil {
			return nil, err
		}
	}
	id, err := didwba.NewIdentity(ed25519.PrivateKey(raw), domain, desc, didwba.WithIdentityLogger(log),
		didwba.WithResolverOptions(append([]didwba.ResolverOption{didwba.WithPrivateAddresses(allowPrivate)}, opts...)...))
	if errors.Is(err, didwba.ErrBadDID) {
		return nil, fmt.Errorf("%w: did_wba_domain: %v", ErrInvalidConfig, err)
	}
	return id, err
}

// DIDDocument returns the path at which the node's DID document must be
// served for its did:wba DID to resolve (the DID's DocumentPath) and the
// handler that serves it; "" and nil without Config.DIDWbaDomain. The
// local API mounts it; a public HTTP server mounts the same.
func (n *Node) DIDDocument() (string, http.Handler) { return n.did.Document() }

// DIDWbaAuthenticator is the DIDWba authentication of the node's public
// endpoints (ANP, A2A): wrap a handler in its Middleware to require a
// DIDWba header or the access token it issued, signed by the node's key
// for the domain each request names. It resolves client DIDs through the
// same cache and bound as the domain checks of cards.
func (n *Node) DIDWbaAuthenticator() *didwba.Authenticator { return n.did.Authenticator() }

// DID is the node's did:wba DID, "" without Config.DIDWbaDomain.
func (n *Node) DID() string { return n.did.DID() }

// ANPClient returns a copy of base (nil: a zero http.Client) that
// authenticates as the node's did:wba DID to the services it calls (a
// DIDWba Authorization header, then the access token they return);
// without Config.DIDWbaDomain it is base itself, or a zero client.
func (n *Node) ANPClient(base *http.Client) *http.Client { return n.did.Client(base) }

// DomainVerified is the domain check of a card whose did is a did:wba
// DID (didwba.Identity.CheckKey with the key of the card's id):
// DomainVerified, DomainPending or "unverified: <why>"; "" for a card
// without a did:wba DID.
func (n *Node) DomainVerified(ctx context.Context, c *adp.Card) string {
	if c == nil || !strings.HasPrefix(c.DID, didwba.Prefix) {
		return ""
	}
	pk, err := adp.PublicKeyFromAgentID(c.ID)
	if err != nil {
		return didwba.UnverifiedPrefix + "the card's id names no Ed25519 key"
	}
	raw, err := pk.Raw() // an Ed25519 key's 32 octets: it cannot fail
	if err != nil {
		return didwba.UnverifiedPrefix + "the card's id names no Ed25519 key"
	}
	return n.did.CheckKey(ctx, c.DID, raw)
}
