// Package join is how a starting node gets onto the network and makes
// itself known, once: the join schedule.
//
//   - Dial connects to the bootstrap peers, all at once and within
//     DialTimeout, then bootstraps the DHT in the background. A failure is
//     logged: package node/peering goes on redialling the bootstrap peers
//     for as long as the node runs, and the DHT retries on its own.
//   - Run waits for the node's first peer, starts the work that needs one
//     (Config.FirstPeer: the node's directory loop), then PublishAfter
//     later publishes the own card (Config.Publish: the node's publishes
//     on the gossip topic, then starts the DHT put) and pulls the cards
//     the connected bootstrap peers hold (Config.Sync), and pulls them
//     once more ResyncAfter after that. These two pulls are not paced by
//     the card sync's once per peer every 5 s (docs/protocol.md says so):
//     a bootstrap peer serves a joining node three pulls in about 2 s.
//
// Nothing else is scheduled: peers that connect later get the card by
// the greeting (package node/greeting) and give theirs by the sync on
// connection (package node/cardsync), and the gossip and dht packages
// re-broadcast and republish the card on their intervals.
//
// A Joiner keeps no state and starts its goroutines through Config.Go,
// the node's, so the node's Close cancels and waits for them. It is safe
// for concurrent use, though a node calls each method once.
package join
