package adp

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/internal/digestset"
)

// Step is a step of the check every card from the network passes, in the
// order a Checker runs them, cheapest first.
type Step uint8

// The check's steps.
const (
	// StepSize: the encoding is larger than MaxCardSize.
	StepSize Step = iota + 1
	// StepParse: not a card (ParseCard fails), or, when an owner is
	// expected, its id names no peer.
	StepParse
	// StepOwner: the card's id names a peer other than the expected owner
	// (ErrNotOwner).
	StepOwner
	// StepValidate: the card breaks adp's validation rules.
	StepValidate
	// StepVerify: the signature is missing or does not verify.
	StepVerify
)

func (s Step) String() string {
	switch s {
	case StepSize:
		return "size"
	case StepParse:
		return "parse"
	case StepOwner:
		return "owner"
	case StepValidate:
		return "validate"
	case StepVerify:
		return "verify"
	}
	return "unknown"
}

// CheckError is the error of a card that failed a step of the check. It
// wraps the step's own error (ErrTooLarge, ErrMalformed, ErrNotOwner, a
// *ValidationError, ErrBadSignature...).
type CheckError struct {
	Step Step
	Err  error
}

func (e *CheckError) Error() string { return e.Err.Error() }

// Unwrap returns the step's error.
func (e *CheckError) Unwrap() error { return e.Err }

// StepOf returns the step err reports a card failed, 0 when err is not a
// *CheckError.
func StepOf(err error) Step {
	var ce *CheckError
	if errors.As(err, &ce) {
		return ce.Step
	}
	return 0
}

// Checker is the check a card from the network passes whatever the path
// it came by (gossip, the DHT, adp.advertise, a directory, an import):
// size, parse, owner, validation rules, signature. It remembers the
// SHA-256 digests of the last encodings that passed, and skips the
// validation and the signature for them: a card heard again costs a
// parse, not a signature check. It also remembers, apart and fewer, the
// encodings whose well-formed signature did not verify: that verdict is a
// pure function of the bytes, so the same forged card heard again (a
// DHT put is checked by kad-dht's handler and again as it is handed on;
// a stranger may replay one) costs a parse, not a signature check, and
// fails with the same error. Other failures are not remembered: the
// validation rules read the clock, and the cheaper steps cost less than
// the look-up. A Checker is safe for concurrent use; a node shares one
// between all its paths. The zero Checker remembers nothing: it verifies
// every card.
type Checker struct {
	// verified and forged are nil in the zero Checker.
	verified *digestset.Set
	forged   *digestset.Set
	verifies atomic.Uint64

	// inflight holds the digests being checked now, so that the same
	// bytes arriving on two paths at once are verified once: the later
	// check waits for the first and then finds its verdict.
	mu       sync.Mutex
	inflight map[digestset.Digest]chan struct{}
}

// verdict is what a Checker remembers of an encoding.
type verdict uint8

const (
	unknown verdict = iota
	passed
	forged
)

// recall returns what k remembers of sum.
func (k *Checker) recall(sum digestset.Digest) verdict {
	switch {
	case k.verified.Has(sum):
		return passed
	case k.forged.Has(sum):
		return forged
	}
	return unknown
}

// begin claims the check of sum. It returns leader true and a channel to
// pass to end when no check of sum is under way and nothing is
// remembered of sum; the verdict when one is; otherwise a channel that is
// closed when the check under way ends. It looks sum up again under k.mu:
// a check that ended between the caller's own look-up and begin recorded
// its verdict before its end took k.mu, and is not run a second time.
func (k *Checker) begin(sum digestset.Digest) (done chan struct{}, leader bool, v verdict) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ch, ok := k.inflight[sum]; ok {
		return ch, false, unknown
	}
	if v := k.recall(sum); v != unknown {
		return nil, false, v
	}
	if k.inflight == nil {
		k.inflight = make(map[digestset.Digest]chan struct{})
	}
	ch := make(chan struct{})
	k.inflight[sum] = ch
	return ch, true, unknown
}

// claim returns the verdict remembered for sum, or else (unknown) the
// channel to pass to end once the caller has checked sum itself. It waits
// for a check of sum already under way, and looks sum up without k.mu
// first: a card heard again takes no lock.
func (k *Checker) claim(sum digestset.Digest) (done chan struct{}, v verdict) {
	for {
		if v := k.recall(sum); v != unknown {
			return nil, v
		}
		done, leader, v := k.begin(sum)
		switch {
		case v != unknown:
			return nil, v
		case leader:
			return done, unknown
		}
		<-done
	}
}

// end releases the check of sum that begin granted.
func (k *Checker) end(sum digestset.Digest, done chan struct{}) {
	k.mu.Lock()
	delete(k.inflight, sum)
	k.mu.Unlock()
	close(done)
}

// NewChecker returns a Checker that remembers the last memo encodings that
// passed (at least 1), and the last memo/4 (at least 1) whose signature
// did not verify.
func NewChecker(memo int) *Checker {
	return &Checker{verified: digestset.New(memo), forged: digestset.New(memo / 4)}
}

// Check runs the check on raw. With owner set, the card's id must name
// owner (the authenticated publisher or caller); with owner empty, the
// id is left to the validation rules. The error is a *CheckError.
func (k *Checker) Check(raw []byte, owner peer.ID) (*Card, error) {
	return check(raw, owner, k)
}

// Verifications returns how many signatures the Checker verified: the
// cards it checked that were not remembered.
func (k *Checker) Verifications() uint64 { return k.verifies.Load() }

// Remembered returns how many encodings that passed the check the
// Checker remembers.
func (k *Checker) Remembered() int {
	if k.verified == nil {
		return 0
	}
	return k.verified.Len()
}

// Remembers reports whether these exact bytes passed the check before and
// are still remembered.
func (k *Checker) Remembers(raw []byte) bool {
	return k.verified != nil && k.verified.Has(sha256.Sum256(raw))
}

// check is the one check sequence: Checker.Check, and DecodeVerified with
// no memory (k nil) and no owner.
func check(raw []byte, owner peer.ID, k *Checker) (*Card, error) {
	// 1. Size.
	if len(raw) > MaxCardSize {
		return nil, &CheckError{StepSize, fmt.Errorf("%w: card is %d octets, limit %d", ErrTooLarge, len(raw), MaxCardSize)}
	}
	// 2. Shape: cheap, before any signature check.
	c, err := ParseCard(raw)
	if err != nil {
		return nil, &CheckError{StepParse, err}
	}
	// 3. Owner.
	if owner != "" {
		named, err := c.PeerID()
		if err != nil {
			return nil, &CheckError{StepParse, err}
		}
		if named != owner {
			return nil, &CheckError{StepOwner, fmt.Errorf("%w: card of %s from %s", ErrNotOwner, named, owner)}
		}
	}
	// 4 and 5. Validation rules and signature, skipped for bytes that
	// passed before or whose signature did not verify before, and checked
	// once when the same bytes arrive on several paths at the same moment.
	var sum digestset.Digest
	memo := k != nil && k.verified != nil
	if memo {
		sum = sha256.Sum256(raw)
		done, v := k.claim(sum)
		switch v {
		case passed:
			return c, nil
		case forged:
			return nil, &CheckError{StepVerify, &mismatchError{id: c.ID}}
		}
		defer k.end(sum, done)
	}
	if err := c.Validate(); err != nil {
		return nil, &CheckError{StepValidate, err}
	}
	if k != nil {
		k.verifies.Add(1)
	}
	if err := c.Verify(); err != nil {
		var mismatch *mismatchError
		if memo && errors.As(err, &mismatch) {
			k.forged.Add(sum)
		}
		return nil, &CheckError{StepVerify, err}
	}
	if memo {
		k.verified.Add(sum)
	}
	return c, nil
}
