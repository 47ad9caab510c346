// Package greeting sends a node's own card to each peer that speaks AITP
// as soon as the peer is identified (adp.advertise, done by the node's
// Advertise function).
//
// GossipSub reaches only the peers subscribed when a card is published,
// and the own card is re-broadcast only every gossip interval; the
// greeting gives a peer that joins later the card at once. A peer is
// greeted once per version of the card (its seq); a greeting that fails
// is forgotten, so the peer's next identification greets it again. A
// greeting the peer stores (it lacked the card) calls Behind: others may
// lack it too. Every peer identified on a new connection, greeted or
// not, is handed to Identified (the node's card sync, which pulls the
// peer's newer cards); an identify push on the same connection is not.
//
// Lifecycle: New subscribes to the host's identification events, so it
// must run before anything dials (the DHT dials its bootstrap peers as
// it is built) for no early peer to be missed; Run greets the peers
// already identified, then each new one, at most Concurrency at a time
// and never holding up the host's identifications (at most Queue peers
// wait), until its context ends, and waits for its greetings; Close ends the
// subscription (Run closes it too) and is idempotent. A Greeter is safe
// for concurrent use.
package greeting
