package wellknown

import "errors"

// Errors of Render and Description; an HTTP layer maps them to 400 and
// 404.
var (
	// ErrBadPage is a page query parameter that is not a positive integer
	// up to MaxPage.
	ErrBadPage = errors.New("wellknown: page must be a positive integer")
	// ErrNotFound is a path that names no document, or an agent this node
	// describes no card of.
	ErrNotFound = errors.New("wellknown: no such document")
)
