package scoring

import "errors"

var (
	// ErrBadWeights reports weights that are negative, not finite or do
	// not sum to 1.
	ErrBadWeights = errors.New("scoring: invalid weights")
	// ErrBadOption reports an option value out of its range.
	ErrBadOption = errors.New("scoring: invalid option")
	// ErrNoID reports a document without an ID.
	ErrNoID = errors.New("scoring: document has no id")
)
