// Package liveness records what a node observes of the agents it knows:
// whether their peer is connected now, when they were last heard from (a
// greeting, a re-broadcast of their card, a call answered) and how many
// calls to them failed in a row. The node turns an agent's [State] into
// the availability signal of the ranking (scoring.Signals: Connected,
// LastSeen, ConsecutiveFailures), so that availability is a signal and
// not a guess: a killed agent stops being heard from and falls below the
// live ones once the availability window passes; an agent whose calls
// fail loses availability with each failure.
//
// A [Tracker] is safe for concurrent use, owns no goroutines and needs
// no Close. Its clock is injected (WithClock) so tests move time by hand.
// It holds at most MaxAgents agents; an observation of a new agent past
// that bound is dropped (the caller logs it).
package liveness
