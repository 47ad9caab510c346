package node

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"
)

// CallPeer exposes the node's call path below agent-id resolution, so that
// tests can dial a peer the node has not learned addresses for.
func (n *Node) CallPeer(ctx context.Context, p peer.ID, method string, body []byte) ([]byte, error) {
	return n.call(ctx, p, method, body)
}
