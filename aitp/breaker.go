package aitp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/p2p/net/swarm"
)

// BreakerState is the state of a per-peer circuit breaker.
type BreakerState int

// Breaker states.
const (
	BreakerClosed   BreakerState = iota // calls flow
	BreakerOpen                         // calls fail fast with ErrCircuitOpen
	BreakerHalfOpen                     // one probe call is allowed through
)

func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "unknown"
}

type outcome int

const (
	outcomeSuccess outcome = iota
	outcomeFailure
	outcomeNeutral
)

// breaker counts consecutive failures towards one peer.
type breaker struct {
	mu       sync.Mutex
	state    BreakerState
	fails    int
	openedAt time.Time
	probing  bool
}

// allow admits a call, reporting whether it is the half-open probe.
func (b *breaker) allow(now time.Time, cooldown time.Duration) (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		if now.Sub(b.openedAt) < cooldown {
			return false, fmt.Errorf("%w: %d consecutive failures", ErrCircuitOpen, b.fails)
		}
		b.state = BreakerHalfOpen
		fallthrough
	case BreakerHalfOpen:
		if b.probing {
			return false, fmt.Errorf("%w: probe in flight", ErrCircuitOpen)
		}
		b.probing = true
		return true, nil
	}
	return false, nil
}

func (b *breaker) record(o outcome, probe bool, now time.Time, threshold int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	switch o {
	case outcomeSuccess:
		b.state, b.fails = BreakerClosed, 0
	case outcomeFailure:
		b.fails++
		if b.state == BreakerHalfOpen || b.fails >= threshold {
			b.state, b.openedAt = BreakerOpen, now
		}
	}
}

// idle reports a closed breaker with no failures counted.
func (b *breaker) idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state == BreakerClosed && b.fails == 0 && !b.probing
}

func (b *breaker) current(now time.Time, cooldown time.Duration) BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen && now.Sub(b.openedAt) >= cooldown {
		return BreakerHalfOpen
	}
	return b.state
}

// classify decides what a call's result says about the remote's health.
// Dispatch refusals that blame the request (NOT_FOUND, UNAUTHORIZED,
// INVALID_REQUEST) prove the remote alive; a caller's own cancellation, a
// slow local reader and a dial that found no address to try (the caller
// does not know where the remote is, and tried nothing) say nothing.
func classify(err error) outcome {
	if err == nil {
		return outcomeSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		switch e.Status {
		case StatusNotFound, StatusUnauthorized, StatusInvalidRequest:
			return outcomeSuccess
		}
		return outcomeFailure
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrStreamOverflow) || errors.Is(err, ErrClosed) ||
		errors.Is(err, swarm.ErrNoAddresses) {
		return outcomeNeutral
	}
	return outcomeFailure
}
