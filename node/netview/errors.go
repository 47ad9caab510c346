package netview

import "errors"

// ErrPeersFile reports a peers file that cannot be used: unreadable,
// too large, not JSON, too many nodes, or an address that is not a
// loopback http URL.
var ErrPeersFile = errors.New("netview: bad peers file")
