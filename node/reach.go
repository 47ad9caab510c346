package node

import (
	"github.com/libp2p/go-libp2p/core/network"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// connKind says whether c is direct or relayed (nodeapi.ConnDirect,
// nodeapi.ConnRelayed).
func connKind(c network.Conn) string {
	if p2phost.IsRelayed(c) {
		return nodeapi.ConnRelayed
	}
	return nodeapi.ConnDirect
}

// reachName names a reachability as the API does.
func reachName(r network.Reachability) string {
	switch r {
	case network.ReachabilityPublic:
		return nodeapi.ReachPublic
	case network.ReachabilityPrivate:
		return nodeapi.ReachPrivate
	}
	return nodeapi.ReachUnknown
}
