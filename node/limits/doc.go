// Package limits is a node's policy on what peers may make it do: the
// rates (per peer and per source network, IPv4 /24 or IPv6 /48) of
// adp.advertise, adp.discover, gossip deliveries, DHT puts and inbound
// connections, and the network a peer's connection is charged to. The
// mechanism is internal/ratelimit; this package holds the numbers and
// why they are what they are.
//
// A [Limits] is built once per node (New), registers its refusal counters
// on the node's registry and is safe for concurrent use; it owns no
// goroutine and needs no Close.
package limits
