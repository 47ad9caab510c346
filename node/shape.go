package node

import (
	"context"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/route"
)

// EndpointLibp2p is the protocol of the endpoints that carry the node's
// listen addresses (full multiaddrs ending in /p2p/<peer id>), so that any
// node holding the card can dial its agent, connected before or not.
const EndpointLibp2p = route.ProtocolLibp2p

// cardAddrMinTTL and cardAddrMaxTTL bound how long addresses learned
// from a card stay in the peerstore: until the card's expiry, at least a
// minute (a stale card's addresses are still the best guess), at most a
// day.
const (
	cardAddrMinTTL = time.Minute
	cardAddrMaxTTL = 24 * time.Hour
)

// needsCardUpdate reports whether the card differs from what the node
// runs: the did, the directory skill, the demo tools, the listen
// addresses.
func (n *Node) needsCardUpdate(c *adp.Card) bool {
	probe := c.Clone()
	n.shapeCard(probe)
	return probe.DID != c.DID || !slices.Equal(probe.Skills, c.Skills) ||
		len(probe.Tools) != len(c.Tools) ||
		!slices.Equal(libp2pURIs(probe), libp2pURIs(c))
}

// shapeCard makes c match what the node runs (see needsCardUpdate).
func (n *Node) shapeCard(c *adp.Card) {
	n.shapeDID(c)
	has := slices.Contains(c.Skills, DirectorySkill)
	switch {
	case n.cfg.Directory && !has:
		c.Skills = append(c.Skills, DirectorySkill)
	case !n.cfg.Directory && has:
		c.Skills = slices.DeleteFunc(c.Skills, func(s string) bool { return s == DirectorySkill })
	}
	if n.cfg.DemoAgent {
		for _, t := range demoagent.Tools() {
			if !slices.ContainsFunc(c.Tools, func(x adp.Tool) bool { return x.Name == t.Name }) {
				c.Tools = append(c.Tools, t)
			}
		}
	}
	eps := slices.DeleteFunc(slices.Clone(c.Endpoints), func(e adp.Endpoint) bool { return e.Protocol == EndpointLibp2p })
	for _, a := range n.Addrs() {
		eps = append(eps, adp.Endpoint{Protocol: EndpointLibp2p, URI: a.String()})
	}
	if len(eps) > 0 || c.Endpoints != nil {
		c.Endpoints = eps
	}
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

// learnAddrs adds the libp2p addresses on p's held card to the
// peerstore, whatever it holds for p already (addresses learned from an
// identify exchange or the DHT may be short-lived ones that vanish), so
// that a call can dial an agent it never met or lost. They stay until the
// card's expiry (see cardAddrMinTTL). It reports whether it added any.
func (n *Node) learnAddrs(p peer.ID, agentID string) bool {
	rec, err := n.store.Card(context.Background(), agentID)
	if err != nil || rec.Card == nil {
		return false
	}
	addrs := cardAddrs(rec.Card, p)
	if len(addrs) == 0 {
		return false
	}
	ttl := cardAddrMinTTL
	if !rec.ExpiresAt.IsZero() {
		ttl = min(max(time.Until(rec.ExpiresAt), cardAddrMinTTL), cardAddrMaxTTL)
	}
	n.host.Peerstore().AddAddrs(p, addrs, ttl)
	return true
}

// cardAddrs returns the addresses of p on c's libp2p endpoints.
func cardAddrs(c *adp.Card, p peer.ID) []ma.Multiaddr {
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
