package node

import (
	"context"

	"github.com/adpnode/adpnode/adp"
)

// DescribedCards are the cards the ANP collection lists: the own card, and
// on a directory peer every card it holds.
func (n *Node) DescribedCards(ctx context.Context) ([]*adp.Card, error) {
	own := n.Card()
	cards := []*adp.Card{own}
	if !n.cfg.Directory {
		return cards, nil
	}
	recs, err := n.Cards(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Card.ID != own.ID {
			cards = append(cards, r.Card)
		}
	}
	return cards, nil
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
