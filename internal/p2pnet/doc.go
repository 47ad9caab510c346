// Package p2pnet builds in-process libp2p networks: N hosts with Ed25519
// identities, either on a mocknet (no sockets, deterministic and cheap) or on
// real loopback TCP (127.0.0.1 port 0, Noise, yamux), connected in a chosen
// topology.
//
// Its TCP hosts come from internal/p2phost, the builder of a node's host
// (and so of every testnet node): the same identity, transports, security
// and muxer, with a test network's policy of unlimited resources and no
// connection trimming where a node pins limits and trims. Mocknet hosts are
// mocknet's own. Only tests import this package, so the node binary does
// not link mocknet. It never imports testing.
//
// # Types
//
// [Network] owns the hosts it built. [New] builds and connects them; [Network.Add]
// adds a late joiner (connected or not); [Network.Connect] links any two hosts;
// [Network.Close] closes every host (and the mocknet) and is idempotent.
// [GenerateKey] makes Ed25519 identities. To wait for a network to settle,
// poll with package internal/poll (internal/polltest in tests).
//
// Services that run on top of the hosts (DHT, GossipSub) must be closed by
// their owners before [Network.Close]: closing a host under a running service
// leaks the service's goroutines.
//
// A Network is safe for concurrent use.
package p2pnet
