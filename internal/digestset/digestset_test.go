package digestset_test

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/adpnode/adpnode/internal/digestset"
)

func digest(i int) digestset.Digest {
	return sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(i)))
}

func TestBoundedFIFO(t *testing.T) {
	s := digestset.New(3)
	for i := range 5 {
		s.Add(digest(i))
		s.Add(digest(i)) // a duplicate takes no second place
	}
	if n := s.Len(); n != 3 {
		t.Fatalf("%d remembered, want 3", n)
	}
	for i := range 5 {
		if got, want := s.Has(digest(i)), i >= 2; got != want {
			t.Fatalf("Has(%d) = %v, want %v", i, got, want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := digestset.New(64)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				s.Add(digest(g*1000 + i))
				s.Has(digest(i))
			}
		})
	}
	wg.Wait()
	if n := s.Len(); n != 64 {
		t.Fatalf("%d remembered, want 64", n)
	}
}
