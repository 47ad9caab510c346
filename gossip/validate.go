package gossip

import (
	"context"
	"crypto/sha256"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// validate is the topic validator; see the package documentation for the
// steps. from is the peer that relayed the message (this host for a local
// publication); msg.GetFrom() is the publisher, authenticated by the
// message signature that pubsub checked before calling us.
func (g *Gossip) validate(_ context.Context, from peer.ID, msg *pubsub.Message) pubsub.ValidationResult {
	res, reason, c := g.check(from, msg)
	switch {
	case res == pubsub.ValidationAccept && reason == reasonRefresh:
		msg.ValidatorData = refreshed{c}
		g.count.Refreshed()
	case res == pubsub.ValidationAccept:
		msg.ValidatorData = c
		g.count.Accepted()
	case res == pubsub.ValidationReject:
		g.count.Rejected(reason)
		g.cfg.log.Debug("card rejected", "peer", from, "publisher", msg.GetFrom(), "reason", reason)
	default:
		g.count.Ignored(reason)
	}
	return res
}

// refreshed marks, in a message's ValidatorData, a re-broadcast of the
// held card: relayed, and handed to OnRefresh rather than OnCard.
type refreshed struct{ c *adp.Card }

// reasonRefresh is check's reason for an accepted re-broadcast; it never
// reaches the metrics.
const reasonRefresh = "refresh"

// check returns the validator's decision, the reason of a Reject or
// Ignore (reasonRefresh for an accepted re-broadcast of the held card)
// and the card.
func (g *Gossip) check(from peer.ID, msg *pubsub.Message) (pubsub.ValidationResult, string, *adp.Card) {
	// 1. Size.
	if len(msg.Data) > adp.MaxCardSize {
		return pubsub.ValidationReject, ReasonOversized, nil
	}
	// 2. Shape: cheap, before any signature check.
	c, err := adp.ParseCard(msg.Data)
	if err != nil {
		return pubsub.ValidationReject, ReasonMalformed, nil
	}
	// 3. Owner: the card's id must name the publisher.
	owner, err := c.PeerID()
	if err != nil {
		return pubsub.ValidationReject, ReasonMalformed, nil
	}
	if owner != msg.GetFrom() {
		return pubsub.ValidationReject, ReasonNotOwner, nil
	}
	// 4. The rest of adp.DecodeVerified's gate: validation rules and
	// signature, skipped for these exact bytes when they passed before.
	sum := sha256.Sum256(msg.Data)
	if !g.verified.Has(sum) {
		if err := c.Validate(); err != nil {
			return pubsub.ValidationReject, ReasonInvalid, nil
		}
		if err := c.Verify(); err != nil {
			return pubsub.ValidationReject, ReasonInvalid, nil
		}
		g.verified.Add(sum)
	}
	// 5. Freshness against the held copy and the last accepted one; our
	// own publications always go.
	if from == g.self {
		return pubsub.ValidationAccept, "", c
	}
	switch g.recent.admit(owner, c, msgSeqno(msg.GetSeqno()), g.cfg.held) {
	case verdictNewer:
		return pubsub.ValidationAccept, "", c
	case verdictRefresh:
		return pubsub.ValidationAccept, reasonRefresh, c
	case verdictReplayed:
		return pubsub.ValidationIgnore, ReasonReplayed, nil
	default:
		return pubsub.ValidationIgnore, ReasonNotNewer, nil
	}
}
