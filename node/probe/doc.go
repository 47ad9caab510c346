// Package probe measures the liveness of a discovery's top results: a
// discovery request with "probe": true has the node ping its top Top
// candidates over AITP before it answers, all at once and within Budget,
// and report each round trip (or why there was none) and the free
// capacity it knows of (the card's max_concurrent_tasks less this node's
// calls in flight to the agent). An answered ping is a sign of life; an
// unanswered one says only that this node could not reach the agent in
// time.
//
// A Prober keeps no state of its own and is safe for concurrent use.
package probe
