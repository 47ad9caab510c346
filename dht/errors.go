package dht

import (
	"errors"
	"fmt"

	"github.com/adpnode/adpnode/adp"
)

// Sentinel errors. Test with errors.Is.
var (
	// ErrNotFound reports that no peer holds a card for the agent. It
	// matches adp.ErrNotFound too.
	ErrNotFound = fmt.Errorf("dht: card %w", adp.ErrNotFound)
	// ErrBadKey reports a record key outside the adpcard namespace or one
	// that does not name a peer.
	ErrBadKey = errors.New("dht: bad record key")
	// ErrKeyMismatch reports a card stored under another agent's key.
	ErrKeyMismatch = errors.New("dht: card id does not match record key")
	// ErrOlder reports a PutCard of a card older than one already put for
	// the same agent.
	ErrOlder = errors.New("dht: card older than the one already put")
	// ErrNoValidValue reports a Select over values none of which is a
	// valid card.
	ErrNoValidValue = errors.New("dht: no valid value")
	// ErrBadTag reports a tag that is empty or too long once normalized.
	ErrBadTag = errors.New("dht: bad tag")
	// ErrNoPeers reports that the routing table stayed empty.
	ErrNoPeers = errors.New("dht: no peers in routing table")
	// ErrClosed reports a call on a closed DHT.
	ErrClosed = errors.New("dht: closed")
	// ErrBadOption reports an invalid option value.
	ErrBadOption = errors.New("dht: invalid option")
)
