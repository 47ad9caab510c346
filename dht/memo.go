package dht

import (
	"crypto/sha256"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/digestset"
)

// memoSize bounds the records a memoValidator remembers as valid.
const memoSize = 4096

// memoValidator is the Validator a DHT hands to kad-dht: the same pure
// decisions, with the (key, value) pairs already found valid remembered by
// hash, so a get that hears one card from sixteen peers verifies its
// signature once. Only successes are remembered here. Safe for concurrent
// use.
//
// With a Checker (the node's, shared with its other paths), step 3 runs
// through it, so a card the node verified on another path (gossip,
// adp.advertise) is not verified again when the DHT hears it, and a
// forged card, which reaches both kad-dht's handler and the queue to
// OnCard, has its signature checked once (the Checker remembers it).
type memoValidator struct {
	ok     *digestset.Set
	decode func([]byte) (*adp.Card, error)
}

func newMemoValidator(size int, k Checker) *memoValidator {
	m := &memoValidator{ok: digestset.New(size), decode: adp.DecodeVerified}
	if k != nil {
		m.decode = func(raw []byte) (*adp.Card, error) { return k.Check(raw, "") }
	}
	return m
}

// remembers reports whether the pair is remembered as valid.
func (m *memoValidator) remembers(key string, value []byte) bool {
	return m.ok.Has(memoKey(key, value))
}

func memoKey(key string, value []byte) digestset.Digest {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(value)
	var k digestset.Digest
	h.Sum(k[:0])
	return k
}

// validate is validate with memory: a remembered pair is only parsed.
func (m *memoValidator) validate(key string, value []byte) (*adp.Card, error) {
	k := memoKey(key, value)
	if m.ok.Has(k) {
		if c, err := adp.ParseCard(value); err == nil {
			return c, nil
		}
	}
	c, err := validateWith(key, value, m.decode)
	if err != nil {
		return nil, err
	}
	m.ok.Add(k)
	return c, nil
}

// Validate implements record.Validator.
func (m *memoValidator) Validate(key string, value []byte) error {
	_, err := m.validate(key, value)
	return err
}

// Select implements record.Validator.
func (m *memoValidator) Select(key string, values [][]byte) (int, error) {
	return selectBest(key, values, m.validate)
}
