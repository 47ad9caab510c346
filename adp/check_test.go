package adp_test

import (
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

// TestCheckerRechecksAfterAFailedCopy: a copy that fails is not
// remembered, so the same bytes fail again on the next check.
func TestCheckerRechecksAfterAFailedCopy(t *testing.T) {
	c, _ := signedFull(t)
	bad := []byte(string(c.Raw()[:len(c.Raw())-3]) + `x"}`)
	k := adp.NewChecker(16)
	for range 2 {
		if _, err := k.Check(bad, ""); err == nil {
			t.Fatal("a broken card passed")
		}
	}
	if k.Remembered() != 0 {
		t.Fatalf("remembered %d encodings of a broken card", k.Remembered())
	}
}
