package node

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/node/owncard"
)

// The protocols of the endpoints the node puts on its card, and the skill
// of a directory peer (package node/owncard).
const (
	EndpointProtocol = owncard.EndpointProtocol
	EndpointLibp2p   = owncard.EndpointLibp2p
	DirectorySkill   = owncard.DirectorySkill
)

// cardAddrMinTTL and cardAddrMaxTTL bound how long addresses learned
// from a card stay in the peerstore: until the card's expiry, at least a
// minute (a stale card's addresses are still the best guess), at most a
// day.
const (
	cardAddrMinTTL = time.Minute
	cardAddrMaxTTL = 24 * time.Hour
)

// setup is what the running node puts on its card (owncard.Shape): its
// did, the directory skill, the demo tools, its listen addresses.
func (n *Node) setup() owncard.Setup {
	return owncard.Setup{DID: n.DID(), Key: n.sk.GetPublic(), Directory: n.cfg.Directory, Demo: n.cfg.DemoAgent, Addrs: n.Addrs()}
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
	addrs := owncard.Addrs(rec.Card, p)
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
