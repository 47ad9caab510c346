// Package peering keeps a node on the network: it never gives up on its
// bootstrap peers, remembers the peers it has met across restarts, redials
// them when the node has too few connections, finds again through the DHT
// a peer whose addresses changed, and optionally finds peers on the local
// network by mDNS. It also keeps the listen ports a node picked at its
// first start, so that its peers find it again after a restart.
//
// # Reconnection
//
// A [Peering] runs one loop over a host. Every tick (Interval, default
// 500 ms) it takes its targets: every bootstrap peer, always, and the
// known peers (the book, below) while the host has fewer than MinPeers
// connections. A target that is not connected and whose next attempt is
// due is dialled, at most MaxDials at a time. A failed dial schedules the
// next attempt after a bounded exponential backoff with jitter ([Backoff]:
// attempt k waits a uniform draw in [d/2, d], d = min(Max, Base·2^k)), on
// the injected clock, and asks the Finder (the node passes the DHT's
// FindPeer) for the peer's current addresses, which the next attempt
// uses. A dial that connects forgets the failures once its connection
// has lasted a minute; one whose connection drops sooner (a peer that
// accepts and closes, a flapping link) counts as failed, so that such a
// peer is redialled with the same backoff. The loop clears libp2p's own
// dial backoff for a target before it dials: its schedule is the pace.
//
// # Known peers
//
// Every peer that completes libp2p identify is noted with its listen
// addresses and the time, in a book persisted as JSON (KnownFile in the
// data directory), bounded to MaxKnown peers (the most recently seen are
// kept) and written atomically every SaveInterval when it changed and at
// Close. New reads it and lends its addresses to the peerstore.
//
// # Listen ports
//
// [ReuseListen] replaces each listen address with port 0 by the address
// of the same shape (IP and transport, TCP and QUIC alike) saved by
// [SaveListen] at an earlier run, when that port is still free; a port
// taken by another program falls back to 0 with a log line. An address
// with an explicit port is left as configured.
//
// # Lifecycle
//
// New subscribes to identification (so no early peer is missed) and
// reads the book; Start starts the loop and mDNS; Close stops them,
// waits for every dial and goroutine, and saves the book. Close is
// idempotent. A Peering is safe for concurrent use.
package peering
