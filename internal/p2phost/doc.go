// Package p2phost builds the libp2p hosts of adpnode: one builder for the
// node (package node), the in-process TCP networks of the tests
// (internal/p2pnet) and, through the node, the testnets. Every host it
// builds has an Ed25519 identity, TCP (and QUIC when asked), Noise, yamux,
// no global metrics, a fixed-limit resource manager and a connection
// manager; the options choose the listen addresses, the limits and the
// connection manager's water marks. Without WithReachability a host has
// no relay; with it, it gets go-libp2p's NAT machinery (AutoNAT v2,
// circuit relay v2 and AutoRelay, DCUtR hole punching, port mapping; see
// Reachability) and refuses relayed connections until its hole punching
// has started (HolePunchReady, Reachability.PunchWait), and
// WithAddrFilter chooses the announced addresses. WithConnectionGater
// adds the caller's own gater.
// TreatAsPublic is a process-wide switch for tests that simulate the
// Internet with private address ranges. NodeLimits are a node's fixed
// resource limits; Close closes a host without waiting for ever on
// go-libp2p's own Close. Read off a host: WatchReachability (a ReachWatch
// following AutoNAT's verdict or the forced one, safe for concurrent
// use, whose Close waits for its goroutine), RelayAddrs and
// PeersSpeaking.
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
// managers with it. The package keeps no state beyond TreatAsPublic's
// and never imports testing.
package p2phost
