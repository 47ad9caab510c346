package dht

import (
	"crypto/sha256"
	"sync"

	"github.com/adpnode/adpnode/adp"
)

// memoSize bounds the records a memoValidator remembers as valid.
const memoSize = 4096

// memoValidator is the Validator a DHT hands to kad-dht: the same pure
// decisions, with the (key, value) pairs already found valid remembered by
// hash, so a get that hears one card from sixteen peers verifies its
// signature once. Only successes are remembered: an invalid record costs a
// full check every time, as it must. Safe for concurrent use.
type memoValidator struct {
	size int
	mu   sync.Mutex
	ok   map[[sha256.Size]byte]struct{}
	ring [][sha256.Size]byte // insertion order, for eviction
	next int
}

func newMemoValidator(size int) *memoValidator {
	return &memoValidator{size: size, ok: make(map[[sha256.Size]byte]struct{}, size), ring: make([][sha256.Size]byte, 0, size)}
}

// remembers reports whether the pair is remembered as valid.
func (m *memoValidator) remembers(key string, value []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.ok[memoKey(key, value)]
	return ok
}

func memoKey(key string, value []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(value)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// validate is validate with memory: a remembered pair is only parsed.
func (m *memoValidator) validate(key string, value []byte) (*adp.Card, error) {
	k := memoKey(key, value)
	m.mu.Lock()
	_, hit := m.ok[k]
	m.mu.Unlock()
	if hit {
		if c, err := adp.ParseCard(value); err == nil {
			return c, nil
		}
	}
	c, err := validate(key, value)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.ok[k]; dup {
		return c, nil
	}
	if len(m.ring) < m.size {
		m.ring = append(m.ring, k)
	} else {
		delete(m.ok, m.ring[m.next])
		m.ring[m.next] = k
		m.next = (m.next + 1) % m.size
	}
	m.ok[k] = struct{}{}
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
