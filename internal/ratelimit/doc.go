// Package ratelimit bounds what peers can make a node do: token buckets
// per key in a table of bounded size, and a Guard that charges one request
// to both its peer and its source network (the IPv4 /24 or IPv6 /48 it
// comes from), so that fresh identities minted on one machine share one
// budget.
//
// A Limiter holds one token bucket per key. Each bucket starts full
// (Rate.Burst tokens) and refills at Rate.PerSecond; a request takes one
// token or is refused with the time until one is available. The table
// holds at most MaxKeys buckets: when full, the least recently used
// bucket is dropped (its key starts again with a full bucket, which is
// why a Guard also charges the source network: cycling identities does
// not refill the network's bucket). Time comes from an injected clock
// (WithClock), so tests step it instead of sleeping.
//
// A Guard pairs a per-peer and a per-network Limiter and counts each
// refusal on a Prometheus counter whose labels come from closed sets: the
// guard's name (advertise, discover, gossip, dht_put, connect), fixed by
// the code that creates it, and the scope ("peer"
// or "network").
//
// A ConnGate is a libp2p connection gater that admits inbound connections
// at a rate per source network, at accept, before the handshake: every
// fresh identity needs a connection.
//
// Limiter, Guard and ConnGate are safe for concurrent use and hold no goroutines;
// there is nothing to close.
package ratelimit
