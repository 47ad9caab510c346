package node

import (
	"context"
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// Status is the node's summary (GET /v1/status).
type Status = nodeapi.Status

// Status returns the node's summary.
func (n *Node) Status() Status {
	c := n.Card()
	st := Status{
		AgentID: n.agentID, PeerID: n.self.String(), Name: c.Name,
		Peers: len(n.Peers()), Cards: n.CardCount(), Directory: n.cfg.Directory, APIURL: n.APIURL(),
		Addrs: []string{}, Agent: n.agentStatus(),
	}
	if c.Seq != nil {
		st.Seq = *c.Seq
	}
	st.CardBytes, st.MaxCards = n.store.CardBytes(), n.cfg.MaxCards
	if held := n.store.Count(); held > 0 {
		st.CardBytesAvg = st.CardBytes / int64(held)
	}
	for _, a := range n.Addrs() {
		st.Addrs = append(st.Addrs, a.String())
	}
	st.Reachability, st.RelayAddrs = reachName(n.reach.Reachability()), p2phost.RelayAddrs(n.host)
	st.HolePunching = p2phost.HolePunchReady(n.host)
	return st
}

// PeerInfo describes a connected peer (GET /v1/peers).
type PeerInfo = nodeapi.PeerInfo

// PeerInfos returns the connected peers, sorted by peer id.
func (n *Node) PeerInfos() []PeerInfo {
	dirs := n.dirs.Known()
	out := []PeerInfo{}
	for _, p := range n.Peers() {
		pi := PeerInfo{PeerID: p.String(), AgentID: adp.AgentID(p), Addrs: []string{}, Conns: []string{}}
		_, pi.Directory = dirs[p]
		for _, c := range n.host.Network().ConnsToPeer(p) {
			pi.Addrs = append(pi.Addrs, c.RemoteMultiaddr().String())
			pi.Conns = append(pi.Conns, connKind(c))
		}
		out = append(out, pi)
	}
	slices.SortFunc(out, func(a, b PeerInfo) int {
		return strings.Compare(a.PeerID, b.PeerID)
	})
	return out
}

// Arrivals returns the node's first arrival of each card version it
// remembers (package node/arrivals), of the given normalized agent ids,
// or of every agent when none is given.
func (n *Node) Arrivals(agents ...string) []nodeapi.Arrival { return n.arrivals.List(agents...) }

// Network returns what the node knows of the network's connections
// (package node/netview): its own, or on a testnet (Config.TestnetPeers)
// those of every node, and how the nodes' cards spread.
func (n *Node) Network(ctx context.Context) (*nodeapi.Network, error) { return n.netview.Network(ctx) }

// seqOf returns a card's seq, 0 when it has none.
func seqOf(c *adp.Card) uint64 {
	if c.Seq == nil {
		return 0
	}
	return *c.Seq
}
