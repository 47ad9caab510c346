// Package arrivals records when a node first held each version of a
// card: the first time its intake stored a card of another agent with a
// given seq, and the time the node published each seq of its own card.
// A testnet compares these records across nodes to show how long each
// card took to reach each node (package node/netview).
//
// A [Log] keeps at most its capacity of versions (DefaultCapacity),
// forgetting the oldest first; the first record of a version wins, so a
// card received again, on another path, or re-published after a refresh
// keeps the time it first arrived. The records live in memory only: a
// restarted node starts a new log. They are served on the node's local
// API only (GET /v1/arrivals): when a node heard of a card says something
// about its place in the network, so they are not published to peers.
//
// A Log is safe for concurrent use and owns no goroutines.
package arrivals
