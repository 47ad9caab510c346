// Package polltest is package poll for tests: Until fails the test with
// the last error the condition returned when it does not hold in time
// ("timed out after 10s: node 2 lacks card 0"), and For does the same for
// a boolean condition, naming what it waited for. Every package's tests
// wait with it instead of a copy of their own.
//
// It takes a small interface (TB, satisfied by testing.TB) rather than
// importing testing, and keeps no state. Only tests import it.
package polltest
