package adp

import (
	"errors"
	"strings"
)

// Sentinel errors. Functions wrap them with %w; test with errors.Is.
var (
	// ErrNotFound reports that no card is known for an agent.
	ErrNotFound = errors.New("adp: not found")
	// ErrTooLarge reports a card or request larger than its size limit
	// (MaxCardSize for cards, MaxDiscoverRequestSize for requests).
	ErrTooLarge = errors.New("adp: document too large")
	// ErrTooDeep reports JSON nested deeper than MaxDepth.
	ErrTooDeep = errors.New("adp: document nested too deeply")
	// ErrMalformed reports input that is not a single well-formed JSON
	// object: bad syntax, invalid UTF-8, duplicate keys or trailing data.
	ErrMalformed = errors.New("adp: malformed JSON")
	// ErrInvalid is matched by every *ValidationError, so callers can test
	// errors.Is(err, ErrInvalid) before reaching for errors.As.
	ErrInvalid = errors.New("adp: invalid document")
	// ErrUnsigned reports a card without a signature where one is required.
	ErrUnsigned = errors.New("adp: card is not signed")
	// ErrBadSignature reports a signature that is malformed or does not
	// verify against the key named by the card's id.
	ErrBadSignature = errors.New("adp: bad signature")
	// ErrBadID reports an agent id that is not an agent:// URI naming an
	// Ed25519 libp2p key, or that names a key other than the one expected.
	ErrBadID = errors.New("adp: bad agent id")
	// ErrNotOwner reports a card whose id names an agent other than the
	// peer that published or delivered it (Checker.Check).
	ErrNotOwner = errors.New("adp: card does not belong to its sender")
	// ErrBadDID reports a did:key that cannot be decoded or is not Ed25519.
	ErrBadDID = errors.New("adp: bad did:key")
	// ErrUnsupportedFilter reports a discover request that asks, with
	// constraints.strict, that every constraint be applied, naming one
	// this package cannot apply (discovery profile 13.3: fail the request
	// or list it in unsupported_filters). It is wrapped by an
	// *UnsupportedFilterError.
	ErrUnsupportedFilter = errors.New("adp: unsupported filter")
	// ErrKeyType reports a private key that is not Ed25519.
	ErrKeyType = errors.New("adp: key is not Ed25519")
)

// UnsupportedFilterError names the constraints of a strict discover
// request that cannot be applied, each by JSON Pointer.
type UnsupportedFilterError struct {
	Paths []string
}

func (e *UnsupportedFilterError) Error() string {
	return "adp: unsupported filter: " + strings.Join(e.Paths, ", ")
}

// Unwrap returns ErrUnsupportedFilter.
func (e *UnsupportedFilterError) Unwrap() error { return ErrUnsupportedFilter }
