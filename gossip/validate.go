package gossip

import (
	"context"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
)

// validate is the topic validator; see the package documentation for the
// steps. from is the peer that relayed the message (this host for a local
// publication); msg.GetFrom() is the publisher, authenticated by the
// message signature that pubsub checked before calling us.
func (g *Gossip) validate(_ context.Context, from peer.ID, msg *pubsub.Message) pubsub.ValidationResult {
	g.vmu.RLock()
	if g.vclosed {
		g.vmu.RUnlock()
		return pubsub.ValidationIgnore // closing: nothing more is taken in
	}
	g.validating.Add(1)
	g.vmu.RUnlock()
	defer g.validating.Done()
	res, reason, c := g.check(from, msg)
	switch {
	case res == pubsub.ValidationAccept && reason == reasonRefresh:
		msg.ValidatorData = refreshed{c}
		g.count.Refreshed()
	case res == pubsub.ValidationAccept:
		msg.ValidatorData = c
		g.count.Accepted()
	case res == pubsub.ValidationReject:
		g.reject.add(from)
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
	// 0. Rate: the relaying peer and its network have a budget of
	// messages; beyond it Ignore, before any parsing.
	if g.cfg.limit != nil && from != g.self {
		if ok, _ := g.cfg.limit.AllowPeer(from, g.remoteAddr(from)); !ok {
			return pubsub.ValidationIgnore, ReasonRateLimited, nil
		}
	}
	// 1 to 4. Size, shape, owner (the card's id must name the publisher),
	// validation rules and signature: the check every card entering the
	// node passes, whatever its path (the Checker), skipped for bytes that
	// passed before. rejectReason names the step that failed.
	owner := msg.GetFrom()
	c, err := g.cfg.check.Check(msg.Data, owner)
	if err != nil {
		return pubsub.ValidationReject, rejectReason(err), nil
	}
	// 5. Freshness against the held copy and the last accepted one; our
	// own publications always go.
	if from == g.self {
		return pubsub.ValidationAccept, "", c
	}
	switch g.recent.admit(owner, c, msgSeqno(msg.GetSeqno()), g.cfg.held, g.cfg.holds) {
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

// rejectReason is the reason of a card that failed the check, by the step
// it failed (steps 1 to 4 of the package documentation).
func rejectReason(err error) string {
	switch adp.StepOf(err) {
	case adp.StepSize: // 1.
		return ReasonOversized
	case adp.StepOwner: // 3.
		return ReasonNotOwner
	case adp.StepValidate, adp.StepVerify: // 4.
		return ReasonInvalid
	default: // 2, and an id that names no peer.
		return ReasonMalformed
	}
}

// remoteAddr returns the address of a connection to p, nil when none.
func (g *Gossip) remoteAddr(p peer.ID) ma.Multiaddr {
	for _, c := range g.h.Network().ConnsToPeer(p) {
		return c.RemoteMultiaddr()
	}
	return nil
}
