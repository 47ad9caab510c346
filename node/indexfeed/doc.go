// Package indexfeed keeps a node's discovery index in step with what the
// node holds and what it observes.
//
// A [Feed] does two things for the index:
//
//   - Cards. Start replays every card the store holds into the index,
//     then applies the store's change feed (a card stored, refreshed or
//     removed) until Close. The feed is the index's only writer of cards.
//     AwaitIndexed waits until the index holds given cards, for a caller
//     that just stored them and is about to rank them.
//   - Signals. The ranking signals of an agent (scoring.Signals) are
//     pushed to the index, never pulled: a search reads no store. The
//     feed pushes an agent's signals whenever one changes: a call to it
//     starts or ends (CallStarted), a call's outcome is written to the
//     store's interaction records (Called, written off the call path by
//     the feed's own goroutine, since a store write waits for its fsync),
//     a rating (Push), a sign of life (Heard), its peer connecting or
//     disconnecting (watched on the host's event bus), its card entering
//     the index with stored records.
//
// Liveness: what the node observes of an agent becomes its availability
// signal (node/liveness). While its peer is connected the agent is
// available; a greeting, a delivery of its card by its owner and an
// answered call are sightings; a failed call lengthens its run of
// failures, and an open circuit breaker counts as enough failures to make
// it unavailable. The ranking's availability window is two re-broadcast
// intervals: a killed agent stops being connected and re-broadcasting,
// and once the window passes unheard it ranks below the live ones; it
// stays listed while its card is held.
//
// Lifecycle: New builds a Feed and starts nothing; Start replays and
// starts the feed's goroutines (the change follower, the interaction
// record writer, the connection watcher); Close stops them and waits for
// them. Every method is safe for concurrent use, before Start and after
// Close included: a call's outcome given before Start waits in the queue
// (at most CallQueue of them; past that it is dropped and logged).
package indexfeed
