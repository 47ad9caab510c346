package cardsync

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
)

// Discover is the Fetch of adpnode nodes: adp.discover through cl with no
// criteria and full detail, so every card the peer holds, best first, at
// most adp.MaxDiscoverLimit (the reply bounded by cl's response limit).
//
// known, when not nil, lists the adp.CardDigest of cards the node holds
// (at most adp.MaxKnownCards are sent): the request carries them, and the
// peer leaves those cards out, so that a sync with a peer that holds what
// the node holds moves none of them. A peer that refuses the list
// (INVALID_REQUEST at /known: an older release, or a peer that takes only
// ADP's own fields) is asked again without it (service.Discover).
func Discover(cl *aitp.Client, known func() []string) Fetch {
	return func(ctx context.Context, p peer.ID) ([]Entry, error) {
		req := AllCards()
		if known != nil {
			req.Known = known()
			req.Known = req.Known[:min(len(req.Known), adp.MaxKnownCards)]
		}
		resp, err := service.Discover(ctx, cl, p, req) // asks again without known when refused
		if err != nil {
			return nil, err
		}
		out := make([]Entry, 0, min(len(resp.Results), adp.MaxDiscoverLimit))
		for _, r := range resp.Results[:min(len(resp.Results), adp.MaxDiscoverLimit)] {
			out = append(out, Entry{ID: r.ID, Card: r.AgentCard})
		}
		return out, nil
	}
}

// AllCards is the adp.discover request for every card a peer holds: no
// criteria, no score floor, full detail, the largest limit.
func AllCards() *adp.DiscoverRequest {
	anyScore := 0.0
	return &adp.DiscoverRequest{Limit: adp.MaxDiscoverLimit, MinScore: &anyScore, Detail: adp.DetailFull}
}
