package gossip

import (
	"context"

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
	switch res {
	case pubsub.ValidationAccept:
		msg.ValidatorData = c
		g.count.Accepted()
	case pubsub.ValidationReject:
		g.count.Rejected(reason)
		g.cfg.log.Debug("card rejected", "peer", from, "publisher", msg.GetFrom(), "reason", reason)
	default:
		g.count.Ignored(reason)
	}
	return res
}

func (g *Gossip) check(from peer.ID, msg *pubsub.Message) (pubsub.ValidationResult, string, *adp.Card) {
	// 1. Size.
	if len(msg.Data) > adp.MaxCardSize {
		return pubsub.ValidationReject, ReasonOversized, nil
	}
	// 2. Shape: cheap, before any signature check.
	pc, err := adp.ParseCard(msg.Data)
	if err != nil {
		return pubsub.ValidationReject, ReasonMalformed, nil
	}
	// 3. Owner: the card's id must name the publisher.
	owner, err := pc.PeerID()
	if err != nil {
		return pubsub.ValidationReject, ReasonMalformed, nil
	}
	if owner != msg.GetFrom() {
		return pubsub.ValidationReject, ReasonNotOwner, nil
	}
	// 4. The full gate: validation rules and signature.
	c, err := adp.DecodeVerified(msg.Data)
	if err != nil {
		return pubsub.ValidationReject, ReasonInvalid, nil
	}
	// 5. Freshness against the held copy and the last accepted one; our
	// own publications always go.
	if from != g.self && !g.recent.admit(owner, c, g.cfg.held) {
		return pubsub.ValidationIgnore, ReasonNotNewer, nil
	}
	return pubsub.ValidationAccept, "", c
}
