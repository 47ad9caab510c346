// Package cardsync pulls a peer's newer cards when a node (re)connects to
// it, and has the node publish its own card again when a peer turns out
// to have missed it.
//
// GossipSub delivers a message to the peers connected when it is
// published and never again: a node that was down, or on the other side
// of a partition, misses every card changed meanwhile until its owner
// re-broadcasts (minutes later). A [Syncer] closes that gap. The node
// tells it of every peer it connects to ([Syncer.Connected]); the Syncer
// asks that peer for the cards it holds ([Fetch]; [Discover] is
// adp.discover with no criteria, the cards best first, at most
// adp.MaxDiscoverLimit) and, for each card newer than the one the node
// holds under adp.Compare, hands its bytes to the node's intake (node/intake),
// which checks it like a card from any other path: a card that fails
// the check is dropped. A card not newer is not verified at all.
//
// # One sync, phase by phase
//
//  1. fetch: the peer's list, bounded by the Fetch's own reply limit and
//     then cut to MaxCards entries ([Discover] sends the digests of the
//     cards the node holds, and the peer leaves those out: a peer that
//     holds what the node holds answers with next to nothing);
//  2. select: each entry is parsed (adp.ParseCard, which refuses more than
//     adp.MaxCardSize octets) and compared with the held card; only the
//     newer ones go on;
//  3. admit: each newer card goes through the intake, which verifies it
//     and stores it only when it still supersedes the held one (gaps only:
//     a held copy keeps its provenance and freshness);
//  4. own card: when the list holds the node's own card at an older
//     version, or lacks it while shorter than MaxCards, the peer missed a
//     publication, and the Syncer schedules one ([Syncer.Behind]).
//
// # Bounds
//
// A peer is synced at most once per Interval: a connection within the
// interval of the last sync with that peer defers the sync to the end of
// the interval, so a flapping link costs one sync per interval and a
// change missed just after a sync is still fetched. A failed sync is
// tried again at the end of the interval, at most three times in a row
// (on a loaded peer a fetch can outlast its timeout). At most MaxInFlight
// syncs run at once and at most MaxPending peers wait; beyond that a
// connection is not synced (Stats.Dropped). So twenty nodes reconnecting
// at once cost each node at most MaxInFlight concurrent requests, and each
// pair of nodes one sync per interval.
//
// With [Rounds], the Syncer also runs anti-entropy: every round (30 s by
// default, jittered) it syncs with the connected peer it synced with
// least recently. That costs a node one request per round, and fetches a
// card GossipSub dropped (a queue full on a loaded node) or published
// before the mesh had formed, long before its owner's re-broadcast.
//
// The own card's republication ([Syncer.Behind], also called by the node
// when a greeting finds a peer without the card) waits RepublishDelay, so
// that the topic mesh over the new connections forms first, coalesces the
// requests made meanwhile, and runs at most once per RepublishInterval;
// [Syncer.Published] (the node published the card by another path) drops
// a pending one and starts that interval again.
//
// # Lifecycle
//
// [New] starts one scheduling goroutine; [Syncer.Close] cancels the
// syncs in flight and waits for every goroutine. Close is idempotent. A
// Syncer is safe for concurrent use.
package cardsync
