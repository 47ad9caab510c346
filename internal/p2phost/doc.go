// Package p2phost builds the libp2p hosts of adpnode: one builder for the
// node (package node), the in-process TCP networks of the tests
// (internal/p2pnet) and, through the node, the testnets. Every host it
// builds has an Ed25519 identity, TCP (and QUIC when asked), Noise, yamux,
// no relay, no global metrics, a fixed-limit resource manager and a
// connection manager; the options choose the listen addresses, the
// limits and the connection manager's water marks.
//
// What differs between a deployed node and a test network is policy, not
// construction: a node pins scaled limits raised for its invocation
// protocol and trims connections above a high-water mark; a test network
// wants every stream and connection it asked for, so it keeps the
// defaults (infinite limits, no trimming). Mocknet hosts are built by
// mocknet itself and do not go through this package.
//
// New tears down what it built when it fails. The returned host is owned
// by the caller, whose Close releases the resource and connection
// managers with it. The package keeps no state and never imports
// testing.
package p2phost
