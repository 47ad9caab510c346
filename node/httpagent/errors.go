package httpagent

import "errors"

// ErrBadURL reports an agent URL that New cannot use; the message says why.
var ErrBadURL = errors.New("httpagent: bad agent URL")
