// Package gossip spreads signed Agent Cards over GossipSub.
//
// Every node joins the topic /adp/cards/1.0.0 ([Topic]); a message's data is
// one signed card, its raw bytes. Messages are signed by their publisher
// (pubsub's StrictSign policy), so the From field names the peer that
// published the message, whatever peer relayed it. Messages are named by
// [MessageID] (the publisher's protobuf public key, then the seqno),
// js-libp2p-gossipsub's default, so that routers of other
// implementations agree with a node on every IHAVE and IWANT.
//
// # Validation
//
// The topic validator decides for every message before it is delivered or
// relayed, in this order, cheapest first:
//
//  0. beyond the rate of the relaying peer or of its network (IPv4 /24,
//     IPv6 /48), when a limiter is set ([WithLimiter]): Ignore (reason
//     rate_limited). Ignore, not Reject: an honest relay forwarding a burst
//     of other agents' cards must not lose its peer score; a relay that
//     sends invalid cards is still Rejected by the steps below;
//  1. larger than adp.MaxCardSize: Reject;
//  2. not a card (adp.ParseCard fails): Reject;
//  3. the card's id is not the message's publisher: Reject (only an agent
//     may publish its own card; a relayed or replayed copy published by a
//     third party is refused);
//  4. the card fails adp's validation or its signature does not verify:
//     Reject. Steps 1 to 4 are the check every card entering a node
//     passes, whatever its path (an adp.Checker, set by [WithChecker]; a
//     node shares one among gossip, the DHT and adp.advertise). It
//     remembers the hashes of the last 4096 encodings that passed, and
//     skips this step for them: a re-broadcast of an unchanged card costs
//     a parse, not a signature check;
//  5. freshness, against the held card (the Held option) or the last card
//     this validator accepted for the agent, whichever is newer under
//     adp.Compare (skipped for the node's own publications):
//     - newer: Accept, relay, and hand the card to the OnCard sink;
//     - the same bytes, in a message whose sequence number is above every
//     one seen from the owner: Accept and relay, and hand it to the
//     OnRefresh sink rather than OnCard. This is the owner's periodic
//     re-broadcast, and relaying it is what lets it reach a node that
//     missed the card several hops away;
//     - the same bytes in an older message: Ignore (reason replayed): a
//     third party replaying the owner's old message cannot make the
//     network carry it again;
//     - anything else (an older card, or another card the ordering cannot
//     tell apart from the held one): Ignore (reason not_newer).
//
// Reject penalizes the peer that relayed the message through GossipSub's
// peer scoring ([ScoreParams], [ScoreThresholds]); Ignore does not.
// Nothing rejected or ignored is relayed. [Stats] and the
// adp_gossip_messages_total counter report each outcome (accepted,
// refreshed, rejected, ignored) with its reason ([ReasonOversized] and
// the other Reason constants).
//
// # Lifecycle
//
// [New] creates a GossipSub router on a host the caller owns, registers the
// validator, joins and subscribes to the topic and starts three goroutines:
// one delivers accepted cards, one re-broadcasts the card given to
// [Gossip.SetOwnCard] as soon as the topic mesh has a peer (a publication
// made before the mesh forms can be lost on a sparse graph) and then every
// RebroadcastInterval, plus or minus a random Jitter, and one tells the
// router again of a peer whose outbound stream it lost and would never
// open again (a race of go-libp2p-pubsub's when two nodes start together;
// Stats.Repaired counts them). [Gossip.Publish]
// publishes a card once, at once; [Gossip.PublishOwn] publishes a new
// version of the own card at once (when the mesh has a peer) and makes it
// the one re-broadcast, the interval starting again, in one publication. [Gossip.MeshSize] and [Gossip.Peers]
// show the node's place in the topic, [Gossip.Stats] the validation
// counters, and [Gossip.PubSub] lends the router to other topics (a host
// runs one). [Gossip.Close] stops the rebroadcast loop, cancels the
// subscription, leaves the topic, stops the router and waits for the
// goroutines; it does not close the host. A Gossip is safe for concurrent
// use.
package gossip
