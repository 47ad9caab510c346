package owncard

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/directories"
	"github.com/adpnode/adpnode/node/route"
)

const (
	// DirectorySkill is the skill a directory peer's card carries
	// (directories.Skill).
	DirectorySkill = directories.Skill
	// EndpointProtocol is the protocol of the endpoint First puts on a
	// card that has none: AITP over libp2p, addressed by the agent id.
	EndpointProtocol = route.ProtocolAITP
	// EndpointLibp2p is the protocol of the endpoints that carry the
	// node's listen addresses (full multiaddrs ending in /p2p/<peer id>),
	// so that any node holding the card can dial its agent, connected
	// before or not.
	EndpointLibp2p = route.ProtocolLibp2p
)

// First returns the first card of sk's agent: tmpl (which it does not
// change) with its id and did set, an AITP endpoint when it has no
// endpoint list (nil; an empty list is kept),
// version 1.0.0 and status active when unset, created_at and updated_at
// now, seq 1, validated and signed. An id in tmpl that names another key
// is replaced.
func First(tmpl *adp.Card, sk crypto.PrivKey, now time.Time) (*adp.Card, error) {
	self, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return nil, err
	}
	c := tmpl.Clone()
	c.ID = adp.AgentID(self)
	if c.DID, err = adp.DIDKey(sk.GetPublic()); err != nil {
		return nil, err
	}
	if c.Endpoints == nil {
		c.Endpoints = []adp.Endpoint{{Protocol: EndpointProtocol, URI: c.ID}}
	}
	if c.Version == "" {
		c.Version = "1.0.0"
	}
	if c.Status == "" {
		c.Status = "active"
	}
	stamp := now.UTC().Format(time.RFC3339)
	if c.Metadata == nil {
		c.Metadata = &adp.Metadata{}
	}
	c.Metadata.CreatedAt, c.Metadata.UpdatedAt = stamp, stamp
	seq := uint64(1)
	c.Seq = &seq
	return sign(c, sk)
}

// Next returns edited, a changed copy of the held card old, as the next
// version of sk's agent's card: the id is that agent's id, in its
// canonical form (an empty id is taken as it; any form of another agent's
// id is ErrOtherID), seq is old's plus one, updated_at is now, created_at
// is old's when edited has none; then it is validated and signed by sk.
// edited is changed in place and returned.
func Next(old, edited *adp.Card, sk crypto.PrivKey, now time.Time) (*adp.Card, error) {
	self, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return nil, err
	}
	agentID := adp.AgentID(self)
	c := edited
	if c.ID == "" {
		c.ID = agentID
	}
	if id, err := adp.NormalizeAgentID(c.ID); err != nil || id != agentID {
		return nil, fmt.Errorf("%w: %s", ErrOtherID, agentID)
	}
	c.ID = agentID
	seq := uint64(1)
	if old.Seq != nil {
		seq = *old.Seq + 1
	}
	c.Seq = &seq
	if c.Metadata == nil {
		c.Metadata = &adp.Metadata{}
	}
	c.Metadata.UpdatedAt = now.UTC().Format(time.RFC3339)
	if c.Metadata.CreatedAt == "" && old.Metadata != nil {
		c.Metadata.CreatedAt = old.Metadata.CreatedAt
	}
	return sign(c, sk)
}

// sign validates c and signs it with sk.
func sign(c *adp.Card, sk crypto.PrivKey) (*adp.Card, error) {
	c.Signature = ""
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.Sign(sk); err != nil {
		return nil, fmt.Errorf("node: sign card: %w", err)
	}
	return c, nil
}

// Setup is what the running node puts on its card.
type Setup struct {
	// DID is the node's did:wba DID, "" without one.
	DID string
	// Key is the agent's public key: its did:key replaces a did:wba DID
	// the node no longer has.
	Key crypto.PubKey
	// Directory: the card carries DirectorySkill; without it, not.
	Directory bool
	// Demo: the card lists the demo tools (package node/demoagent).
	Demo bool
	// Addrs are the node's listen addresses, each ending in /p2p/<peer id>:
	// the card's libp2p endpoints, in this order.
	Addrs []ma.Multiaddr
}

// Shape makes c match s.
func Shape(c *adp.Card, s Setup) {
	switch {
	case s.DID != "":
		c.DID = s.DID
	case strings.HasPrefix(c.DID, didwba.Prefix) && s.Key != nil:
		if k, err := adp.DIDKey(s.Key); err == nil {
			c.DID = k
		}
	}
	has := slices.Contains(c.Skills, DirectorySkill)
	switch {
	case s.Directory && !has:
		c.Skills = append(c.Skills, DirectorySkill)
	case !s.Directory && has:
		c.Skills = slices.DeleteFunc(c.Skills, func(x string) bool { return x == DirectorySkill })
	}
	if s.Demo {
		for _, t := range demoagent.Tools() {
			if !slices.ContainsFunc(c.Tools, func(x adp.Tool) bool { return x.Name == t.Name }) {
				c.Tools = append(c.Tools, t)
			}
		}
	}
	eps := slices.DeleteFunc(slices.Clone(c.Endpoints), func(e adp.Endpoint) bool { return e.Protocol == EndpointLibp2p })
	for _, a := range s.Addrs {
		eps = append(eps, adp.Endpoint{Protocol: EndpointLibp2p, URI: a.String()})
	}
	if len(eps) > 0 || c.Endpoints != nil {
		c.Endpoints = eps
	}
}

// NeedsUpdate reports whether c differs from its shape under s: the did,
// the skills, the number of tools, the libp2p endpoints.
func NeedsUpdate(c *adp.Card, s Setup) bool {
	probe := c.Clone()
	Shape(probe, s)
	return probe.DID != c.DID || !slices.Equal(probe.Skills, c.Skills) ||
		len(probe.Tools) != len(c.Tools) ||
		!slices.Equal(libp2pURIs(probe), libp2pURIs(c))
}

// libp2pURIs returns the card's libp2p endpoint URIs, sorted.
func libp2pURIs(c *adp.Card) []string {
	var out []string
	for _, e := range c.Endpoints {
		if e.Protocol == EndpointLibp2p {
			out = append(out, e.URI)
		}
	}
	slices.Sort(out)
	return out
}

// Addrs returns the addresses of p on c's libp2p endpoints (those that
// name p; others are skipped).
func Addrs(c *adp.Card, p peer.ID) []ma.Multiaddr {
	var addrs []ma.Multiaddr
	for _, e := range c.Endpoints {
		if e.Protocol != EndpointLibp2p {
			continue
		}
		m, err := ma.NewMultiaddr(e.URI)
		if err != nil {
			continue
		}
		ai, err := peer.AddrInfoFromP2pAddr(m)
		if err != nil || ai.ID != p {
			continue
		}
		addrs = append(addrs, ai.Addrs...)
	}
	return addrs
}
