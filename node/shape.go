package node

import (
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
)

// EndpointLibp2p is the protocol of the endpoints that carry the node's
// listen addresses (full multiaddrs ending in /p2p/<peer id>), so that any
// node holding the card can dial its agent, connected before or not.
const EndpointLibp2p = "libp2p"

// cardAddrTTL is how long addresses learned from a card stay in the
// peerstore.
const cardAddrTTL = 10 * time.Minute

// needsCardUpdate reports whether the card differs from what the node
// runs: the directory skill, the demo tools, the listen addresses.
func (n *Node) needsCardUpdate(c *adp.Card) bool {
	probe := c.Clone()
	n.shapeCard(probe)
	return !slices.Equal(probe.Skills, c.Skills) ||
		len(probe.Tools) != len(c.Tools) ||
		!slices.Equal(libp2pURIs(probe), libp2pURIs(c))
}

// shapeCard makes c match what the node runs (see needsCardUpdate).
func (n *Node) shapeCard(c *adp.Card) {
	has := slices.Contains(c.Skills, DirectorySkill)
	switch {
	case n.cfg.Directory && !has:
		c.Skills = append(c.Skills, DirectorySkill)
	case !n.cfg.Directory && has:
		c.Skills = slices.DeleteFunc(c.Skills, func(s string) bool { return s == DirectorySkill })
	}
	if n.cfg.DemoAgent {
		for _, t := range DemoTools() {
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

// learnAddrs adds the addresses on p's held card to the peerstore when the
// node has none for p, so that a call can dial an agent it never met.
func (n *Node) learnAddrs(p peer.ID, agentID string) {
	if len(n.host.Peerstore().Addrs(p)) > 0 {
		return
	}
	c := n.store.Held(agentID)
	if c == nil {
		return
	}
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
	if len(addrs) > 0 {
		n.host.Peerstore().AddAddrs(p, addrs, cardAddrTTL)
	}
}
