package node

import (
	"context"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/store"
)

// DescribedCards returns at most limit of the cards the ANP collection
// lists, from offset, and how many it lists: the own card first, then on a
// directory peer every other card it holds, in agent id order. The held
// cards before offset are not read (store.CardsAt).
func (n *Node) DescribedCards(ctx context.Context, offset, limit int) ([]*adp.Card, int, error) {
	total := 1
	if n.cfg.Directory {
		total += n.store.Count()
		if c := n.store.Held(n.agentID); c != nil && !c.IsRevocation() {
			total-- // counted, but listed first, not among the held
		}
	}
	var cards []*adp.Card
	if offset == 0 && limit > 0 {
		cards = append(cards, n.Card())
	}
	if !n.cfg.Directory || len(cards) == limit {
		return cards, total, nil
	}
	err := n.store.CardsAt(ctx, max(offset-1, 0), n.agentID, func(r *store.Record) bool {
		cards = append(cards, r.Card)
		return len(cards) < limit
	})
	if err != nil {
		return nil, 0, err
	}
	return cards, total, nil
}

// DescribedCard returns the card an ANP description of agentID
// (agent://... or its bare key) is made from: the own card or, on a
// directory peer, a held card; nil when there is none.
func (n *Node) DescribedCard(agentID string) *adp.Card {
	norm, err := adp.NormalizeAgentID(agentID)
	switch {
	case err != nil:
		return nil
	case norm == n.agentID:
		return n.Card()
	case n.cfg.Directory:
		return n.store.Held(norm)
	}
	return nil
}
