// Package service serves and calls the three ADP methods (ADP section 4)
// over AITP: adp.describe, adp.advertise and adp.discover. It is the only
// part of ADP that knows about AITP, so that package adp, and the
// packages that handle cards (store, gossip, dht), stay free of the
// invocation layer.
//
// # Serving
//
// New builds a Service from a CardSource (the agent's own card) and,
// optionally, a CardSink (WithCardSink, enables adp.advertise) and a
// Discoverer (WithDiscoverer, enables adp.discover). Register binds the
// enabled methods on an aitp.Server; a method left out is answered
// NOT_FOUND. Requests are decoded strictly with the parsers of package
// adp; a malformed request or card is INVALID_REQUEST with the JSON
// Pointer of its first problem, a card whose id names someone other than
// the caller is UNAUTHORIZED. With a Limiter (WithAdvertiseLimit,
// WithDiscoverLimit), a call beyond the caller's rate (per peer and per
// source network) is answered BUSY with retry_after, in seconds, before its
// body is read. The composition root (package node) plugs
// its store and index into the interfaces.
//
// # Calling
//
// Describe, Advertise and Discover call the methods on a remote peer
// through an aitp.Client. Describe without fields verifies the card it
// gets back and checks that it is the callee's own.
//
// # Concurrency
//
// A Service is safe for concurrent use and holds no goroutines; it has
// nothing to close. The client functions are safe for concurrent use as
// far as the aitp.Client is.
package service
