//go:build race

package testnet_test

// raceEnabled reports that the test binary was built with -race; the
// end-to-end test then builds the node binary with -race too, which reuses
// the race-instrumented packages the test build already compiled and runs
// the nodes under the race detector.
const raceEnabled = true
