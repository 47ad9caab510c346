package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Test for them with errors.Is; the store wraps them with
// the agent id or key they concern.
var (
	// ErrNotFound: no live card (or no record) for the agent.
	ErrNotFound = errors.New("store: not found")
	// ErrRevoked accompanies ErrNotFound when the agent's latest card is a
	// revocation (ADP 6.4) held as a tombstone.
	ErrRevoked = errors.New("store: card revoked")
	// ErrLocked: another process has the store's directory open.
	ErrLocked = errors.New("store: directory in use by another process")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrCorrupt: a value on disk could not be decoded. The value is skipped
	// and reported (see Store.Corrupt), never fatal.
	ErrCorrupt = errors.New("store: corrupt value")
	// ErrInvalid: an argument is out of bounds (nil card, unknown source,
	// oversized origin or rater, stars outside 1..5, bad agent id).
	ErrInvalid = errors.New("store: invalid argument")
	// ErrTooLarge: the card's encoding exceeds adp.MaxCardSize.
	ErrTooLarge = errors.New("store: card too large")
	// ErrFull: a new agent's card was refused because the store holds
	// WithMaxCards cards (or its source network holds its share), none of
	// them weaker than the newcomer in the eviction order.
	ErrFull = errors.New("store: full")
)

// CorruptError reports one value that failed to decode. It wraps ErrCorrupt
// and the decoding error.
type CorruptError struct {
	Key string // the Badger key, printable
	Err error  // what was wrong
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("store: corrupt value at %q: %v", e.Key, e.Err)
}

// Unwrap returns ErrCorrupt and the decoding error.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }
