package dht_test

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/dht"
	"github.com/adpnode/adpnode/internal/cardtest"
)

// FuzzValidator feeds arbitrary values to the validator. Properties: it
// never panics; a value it admits is selected over nothing else, and
// Select over a value and its copy picks the first.
func FuzzValidator(f *testing.F) {
	sk := newKey(f)
	p, _ := peer.IDFromPrivateKey(sk)
	good := cardtest.Signed(f, sk, 1, "alpha", "nlp/translation")
	f.Add(good.Raw())
	f.Add(cardtest.Tamper(f, good.Raw(), "alpha", "alphb"))
	f.Add([]byte(`{"id":"agent://x","name":"y"}`))
	f.Add([]byte(`[]`))
	key := dht.Key(p)
	f.Fuzz(func(t *testing.T, value []byte) {
		err := dht.Validator{}.Validate(key, value)
		i, serr := dht.Validator{}.Select(key, [][]byte{value, value})
		if err != nil {
			if serr == nil {
				t.Fatalf("Select chose an invalid value (Validate: %v)", err)
			}
			return
		}
		if serr != nil || i != 0 {
			t.Fatalf("Select over two copies of a valid value = %d, %v", i, serr)
		}
	})
}
