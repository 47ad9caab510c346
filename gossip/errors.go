package gossip

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrNotOwner reports an attempt to publish a card of another agent:
	// every peer would reject it.
	ErrNotOwner = errors.New("gossip: card does not belong to this node")
	// ErrClosed reports a call on a closed Gossip.
	ErrClosed = errors.New("gossip: closed")
	// ErrBadOption reports an invalid option value.
	ErrBadOption = errors.New("gossip: invalid option")
)
