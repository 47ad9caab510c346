// Package poll waits for a condition by checking it at backing-off
// intervals until it holds, a timeout passes or a context ends: the way
// production code (a DHT waiting for its routing table), testnets and
// tests wait for a network to settle instead of sleeping for a guessed
// time.
//
// A condition is a func() error: nil when it holds, otherwise an error
// saying what is still missing. Until returns the last such error with
// the timeout (wrapping ErrTimeout) so that a failed wait says why, not
// only that it timed out. Cond adapts a boolean condition.
//
// The package keeps no state and never imports testing; package
// internal/polltest wraps Until for tests.
package poll
