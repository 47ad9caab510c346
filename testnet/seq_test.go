package testnet_test

import "github.com/adpnode/adpnode/adp"

// seqOf is a card's seq, 0 when it has none.
func seqOf(c *adp.Card) uint64 {
	if c == nil || c.Seq == nil {
		return 0
	}
	return *c.Seq
}
