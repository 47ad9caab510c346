package join

import "errors"

// ErrBadConfig is a Joiner built without what it needs.
var ErrBadConfig = errors.New("join: bad configuration")
