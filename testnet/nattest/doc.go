// Package nattest runs adpnode across real network address translation:
// Linux network namespaces joined by veth pairs, a "public" namespace with
// a bootstrap, directory and relay node, and two private namespaces, each
// behind its own router namespace that masquerades with nftables. The
// nodes are the real adpnode binary, started with `ip netns exec`.
//
// Every address lies in a private range (10/8, 172.16/12, 192.168/16) and
// inside namespaces the test creates; no namespace has a default route,
// so no packet leaves them. libp2p counts private ranges as unreachable
// from outside, so the nodes are told what a deployment on the Internet
// would learn: the public namespace's subnet counts as public
// (--simulate-public-subnet) and the relay node's reachability is forced
// public, the private nodes' private (--reachability). Those options
// exist for this purpose.
//
// The tests need root, iproute2 and nftables. Under CI=true they fail
// without them; elsewhere they skip, saying why. Every namespace, nft
// table and process they make is removed when they end, also on failure.
// The package holds tests only.
package nattest
