package owncard

import "errors"

var (
	// ErrOtherID is an edit of the own card that names another agent's id.
	ErrOtherID = errors.New("owncard: the card's id is not this node's agent id")
	// ErrBadConfig is a Keeper built without what it needs.
	ErrBadConfig = errors.New("owncard: bad configuration")
	// ErrNoCard is a nil card given to Replace.
	ErrNoCard = errors.New("owncard: no card")
)
