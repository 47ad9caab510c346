package cardsync

import "errors"

// ErrBadOption reports an invalid option.
var ErrBadOption = errors.New("cardsync: bad option")
