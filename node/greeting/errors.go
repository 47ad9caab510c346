package greeting

import "errors"

// ErrBadConfig is returned by New when a required field of Config is
// missing.
var ErrBadConfig = errors.New("greeting: bad config")
