// Package store keeps, in a Badger database, what a node knows about other
// agents: the newest signed card of each agent with its provenance and
// freshness, revocation tombstones, and local interaction records for the
// reputation and rating factors of discovery.
//
// # Main types
//
// Store is the database; Open creates it and Close releases it. Record is a
// held card with its source (self, gossip, dht, advertise, import), origin
// (the peer or service that supplied it), received time and expiry. Stats
// are the interaction records of one agent. Change is one event of the feed
// returned by Subscribe.
//
// # Ordering and revocation
//
// PutCard applies adp.Compare (ADP 3.2 and 6.3: seq first, signed over
// unsigned, then updated_at) against the held card inside one Badger
// transaction, retried on conflict, with writers of one agent serialized:
// concurrent puts of different versions always end with the newest. A
// revocation (ADP 6.4: tools and endpoints present and empty) deletes the
// live card and is kept as a tombstone for the longer of its TTL and
// WithTombstoneTTL (default 7 days) plus the grace period, so a replay of an
// older card cannot bring the agent back. Callers pass verified cards; the
// store does not check signatures.
//
// # Freshness
//
// A card's ExpiresAt is its received time plus metadata.ttl, or the default
// TTL (WithDefaultTTL, 1 hour). Past ExpiresAt, Record.Stale reports true:
// the card is still returned, and its owner or the DHT should be asked
// again. Receiving the same card again extends its freshness. A sweeper
// (every WithSweepInterval, 1 minute; or Sweep directly) removes cards and
// tombstones whose expiry plus WithGrace (24 hours) has passed and emits
// Removed for each card. WithNoEviction (directory peers) keeps everything.
// The clock is injectable (WithClock). The sweep reads record headers only
// (about 2.4 us per held card on the development machine). Once a card is
// swept the store forgets its seq: only tombstones keep older cards out.
//
// # Bounds
//
// WithMaxCards bounds the live card set, so that identities, which cost
// an attacker nothing, cannot fill a node's memory and disk. A card of an
// agent already held is always taken; a new agent's card takes the place
// of a weaker held card or is refused with ErrFull. The eviction order
// keeps established agents: stale cards (their owner stopped
// re-broadcasting them) go first, then cards of shorter tenure (the time
// between the first and the last receipt: how long the owner has been
// seen re-broadcasting), then cards first seen later. A newcomer has no
// tenure and was first seen now, so while every held card is fresh it is
// refused: a flood of new identities displaces nothing. Cards of the node
// itself (SourceSelf) and imported ones (SourceImport: an operator, a
// bootstrap sync, a federated discovery) are pinned: never evicted, and a
// pinned newcomer takes the place of the weakest unpinned card.
//
// PutCard's FromNetwork names the source network of a delivery (the node
// passes the IPv4 /24 or IPv6 /48 of the peer that delivered the card):
// new agents from one network hold at most WithNetworkShare of the bound
// (default 10%), so one machine minting identities cannot take more.
// Tenure and networks are kept in memory (about 150 bytes per card) and
// start again at Open, where the last receipt is the first. Evictions go
// through the change feed (Removed, ReasonEvicted) like every removal, so
// the discovery index follows; Metrics.Refused and CardRemoved count each
// bound hit.
//
// # Change feed
//
// Subscribe returns a channel of Upserted, Refreshed and Removed changes
// of the live card set; Refreshed is the held card received again (an
// owner's re-broadcast), whose times alone moved. Writers never block on
// subscribers: pending changes are coalesced per agent (latest wins, a
// refresh never hiding a pending Upserted), so a slow subscriber skips
// intermediate versions but converges on the store's state. The discovery
// index subscribes, replays Cards, then follows the feed.
//
// # Key layout
//
// Keys are a one-letter prefix and the normalized agent id
// ("agent://k51...", which has no further slash):
//
//	c/<agent id>             card record: version 1 | source | origin |
//	                         received | expires | signed card bytes
//	t/<agent id>             tombstone: the revocation card, same layout
//	i/<agent id>/s           counters: calls, successes, failures, total
//	                         latency, completed tasks, rating count and sum,
//	                         last seen, last call
//	i/<agent id>/r/<rater>   one rating (1..5 stars and time) per rater
//
// Values begin with a version byte (see format.go) and use varints. Live
// cards and tombstones exclude each other.
//
// # Durability and corruption
//
// A write is acknowledged (PutCard, Rate and CompleteTask return nil)
// only after it is committed and synced: the store calls
// Badger's Sync after the commit, and concurrent writers share one sync
// (group commit), so many writers cost about one disk flush between them.
// An acknowledged write survives kill -9 (tested with a SIGKILLed
// subprocess) and power loss, with one narrow exception: a commit whose
// memtable Badger rotates out just before the sync reaches the disk when
// that memtable is flushed, moments later, not at the sync. A PutCard with
// SyncLater, for a card nobody is told was stored (relayed by gossip,
// pulled from a peer, the DHT or a directory), returns after the commit
// and starts that sync in the background: it survives kill -9 as well,
// and power loss once the sync has run. RecordCall, the node's own
// record of a call, is written the same way. Open scans and re-parses the
// stored cards (without re-verifying signatures: they were verified before
// they were stored, and the data directory is trusted) to count them. A
// value that fails to decode is logged, counted (Metrics.Corrupt), listed
// by Corrupt and skipped; it never stops the node, and a newer card
// replaces it.
//
// # Memory
//
// Badger's defaults, sized for a server, hold about 86 MiB of heap; a
// store sizes Badger for the cards of a node or a directory peer (an 8 MiB
// memtable, a 16 MiB block cache; see cardStore) and holds about 11 MiB.
// WithSmallMemory goes further for tests and testnets (a 1 MiB memtable,
// no compression, no caches: about 1.4 MiB); WithInMemory needs no
// directory.
// Interaction counters are also kept in memory (one small struct per agent
// called) so that scoring reads them without I/O.
//
// Store is safe for concurrent use. Close waits for the sweeper and the
// operations in flight, closes every subscription channel and the database.
package store
