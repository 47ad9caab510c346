package adp_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/adpnode/adpnode/adp"
)

// TestCheckerVerifiesConcurrentCopiesOnce: the same bytes checked on many
// paths at the same moment are verified once; every check gets the card.
func TestCheckerVerifiesConcurrentCopiesOnce(t *testing.T) {
	c, _ := signedFull(t)
	raw := c.Raw()
	k := adp.NewChecker(16)
	const paths = 32
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, paths)
	for range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got, err := k.Check(raw, "")
			if err == nil && got.ID != c.ID {
				t.Errorf("card %s, want %s", got.ID, c.ID)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("check: %v", err)
		}
	}
	if n := k.Verifications(); n != 1 {
		t.Fatalf("%d verifications of one encoding checked %d times at once, want 1", n, paths)
	}
}

// forge returns c's encoding with a well-formed signature that does not
// verify: one character in the middle of the signature changed.
func forge(t *testing.T, c *adp.Card) []byte {
	t.Helper()
	sig := []byte(c.Signature)
	sig[40] = map[bool]byte{true: 'B', false: 'A'}[sig[40] == 'A']
	raw := bytes.Replace(c.Raw(), []byte(c.Signature), sig, 1)
	if bytes.Equal(raw, c.Raw()) {
		t.Fatal("signature not found in the encoding")
	}
	return raw
}

// TestCheckerRemembersForgery: a well-formed signature that does not
// verify is verified once, however often and on however many paths at
// once the same bytes arrive, and every check fails with the same error.
// The card's genuine encoding still passes.
func TestCheckerRemembersForgery(t *testing.T) {
	c, _ := signedFull(t)
	forged := forge(t, c)
	k := adp.NewChecker(16)
	_, first := k.Check(forged, "")
	if adp.StepOf(first) != adp.StepVerify || !errors.Is(first, adp.ErrBadSignature) {
		t.Fatalf("forged card: %v (step %v), want a bad signature at the verify step", first, adp.StepOf(first))
	}
	const paths = 32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range paths {
		wg.Go(func() {
			<-start
			_, err := k.Check(forged, "")
			if adp.StepOf(err) != adp.StepVerify || !errors.Is(err, adp.ErrBadSignature) || err.Error() != first.Error() {
				t.Errorf("forged card again: %v, want %v", err, first)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := k.Verifications(); n != 1 {
		t.Fatalf("%d verifications of one forged encoding checked %d times, want 1", n, paths+1)
	}
	if k.Remembered() != 0 {
		t.Fatalf("remembered %d encodings as passed", k.Remembered())
	}
	if _, err := k.Check(c.Raw(), ""); err != nil {
		t.Fatalf("genuine card after its forgery: %v", err)
	}
	if n := k.Verifications(); n != 2 {
		t.Fatalf("%d verifications, want 2", n)
	}
}

// TestCheckerRechecksMalformedSignature: a signature that is not 64
// octets of base64url fails the validation rules, before any signature
// check, every time, and nothing is remembered of it.
func TestCheckerRechecksMalformedSignature(t *testing.T) {
	c, _ := signedFull(t)
	bad := bytes.Replace(c.Raw(), []byte(c.Signature), []byte(c.Signature[:40]), 1)
	k := adp.NewChecker(16)
	for range 2 {
		if _, err := k.Check(bad, ""); adp.StepOf(err) != adp.StepValidate {
			t.Fatalf("short signature: %v (step %v), want the validate step", err, adp.StepOf(err))
		}
	}
	if n := k.Verifications(); n != 0 {
		t.Fatalf("%d signature checks of a malformed signature, want 0", n)
	}
	if k.Remembered() != 0 {
		t.Fatalf("remembered %d encodings of a broken card", k.Remembered())
	}
}
