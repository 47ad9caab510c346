// Package metrics holds a node's Prometheus metrics, on a registry of
// the node's own: no global registration, so many nodes can share a
// process. The packages the node wires (store, gossip, rate limits, and
// aitp's server and client) register theirs on the same registry
// (Metrics.Reg), so GET /metrics serves them all.
//
// Every label comes from a closed set, whatever peers and API clients
// send: statuses are aitp's defined ones or "other" (aitp.Status.Label);
// an inbound call's method is a tool the node registered (unknown methods
// never reach a handler); an outbound call's method is named only when it
// is an ADP method or a tool on the callee's held card, and only for the
// first MaxMethodLabels such names (MethodLabels), every other call
// counting as "other"; a discovery's scope is one the node names.
//
// Metrics and MethodLabels are safe for concurrent use; neither needs a
// Close.
package metrics
