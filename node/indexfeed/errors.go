package indexfeed

import "errors"

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("indexfeed: closed")
