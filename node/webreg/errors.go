package webreg

import (
	"errors"
	"fmt"
	"time"
)

// Refusals of Register.
var (
	// ErrRefusedURL is a URL or address the outbound policy refuses.
	ErrRefusedURL = errors.New("webreg: URL refused")
	// ErrFetch is a document that could not be had (unreachable, an HTTP
	// status other than 200, a redirect, a timeout).
	ErrFetch = errors.New("webreg: fetch failed")
	// ErrTooLarge is a document above MaxDocBytes.
	ErrTooLarge = errors.New("webreg: document too large")
	// ErrFormat is a document that is neither an A2A card nor an ANP
	// agent description the bridge can read.
	ErrFormat = errors.New("webreg: not an A2A card or ANP agent description")
	// ErrSignature is an A2A card whose signatures all fail to verify.
	ErrSignature = errors.New("webreg: signature does not verify")
	// ErrFull is a new registration beyond MaxCards.
	ErrFull = errors.New("webreg: registry full")
	// ErrRateLimited is a requester over its rate (see *RateError).
	ErrRateLimited = errors.New("webreg: too many registrations")
)

// RateError is a registration refused by the rate limit; RetryAfter is
// when one would pass.
type RateError struct{ RetryAfter time.Duration }

func (e *RateError) Error() string {
	return fmt.Sprintf("%s: retry in %s", ErrRateLimited, e.RetryAfter.Round(time.Second))
}

func (e *RateError) Unwrap() error { return ErrRateLimited }
