package node

import (
	"context"
	"net/http"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp/didwba"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/liveness"
)

// CallPeer exposes the node's call path below agent-id resolution, so that
// tests can dial a peer the node has not learned addresses for.
func (n *Node) CallPeer(ctx context.Context, p peer.ID, method string, body []byte) ([]byte, error) {
	return n.invoke.Call(ctx, p, method, body)
}

// SyncStats exposes the card sync's counters.
func (n *Node) SyncStats() cardsync.Stats { return n.sync.Stats() }

// SyncWith runs one card sync with p at once.
func (n *Node) SyncWith(ctx context.Context, p peer.ID) error { return n.sync.Sync(ctx, p) }

// IntakeStats exposes the intake's counters.
func (n *Node) IntakeStats() intake.Stats { return n.intake.Stats() }

// CheckerRemembered is how many card encodings the node's shared check
// remembers as verified.
func (n *Node) CheckerRemembered() int { return n.intake.Checker().Remembered() }

// IndexAnalyzed is how many cards the discovery index analysed.
func (n *Node) IndexAnalyzed() uint64 { return n.index.Analyzed() }

// SetDIDResolverClient makes the domain checks of did:wba cards and the
// DIDWba authenticator fetch DID documents through c (a test HTTPS
// server's client).
func (n *Node) SetDIDResolverClient(c *http.Client) {
	did, err := newDIDIdentity(n.cfg.DIDWbaDomain, n.sk, n.agentID, n.cfg.A2AAllowPrivate, n.log, didwba.WithHTTPClient(c))
	if err != nil {
		panic(err) // the node was built with the same configuration
	}
	n.did = did
}

// Liveness is what the node observed of agentID (package node/liveness).
func (n *Node) Liveness(agentID string) liveness.State { return n.live.Get(agentID) }
