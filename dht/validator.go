package dht

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// Key returns the record key of agent p's card: "/adpcard/" + string(p).
func Key(p peer.ID) string { return "/" + Namespace + "/" + string(p) }

// KeyForAgent returns the record key of the card of an agent id in any form
// adp.PeerIDFromAgentID accepts.
func KeyForAgent(agentID string) (string, error) {
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		return "", err
	}
	return Key(p), nil
}

// PeerFromKey returns the peer a record key names.
func PeerFromKey(key string) (peer.ID, error) {
	rest, ok := strings.CutPrefix(key, "/"+Namespace+"/")
	if !ok {
		return "", fmt.Errorf("%w: not in namespace %s", ErrBadKey, Namespace)
	}
	p, err := peer.IDFromBytes([]byte(rest))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadKey, err)
	}
	return p, nil
}

// Validator validates and selects adpcard records. Its methods are pure
// functions of their arguments; the zero value is ready to use.
type Validator struct{}

// Validate admits value under key when:
//
//  1. key is /adpcard/<peer id> and names a valid peer ID;
//  2. value is at most adp.MaxCardSize octets;
//  3. value is a card that parses, passes adp's validation and carries a
//     signature that verifies against the key its id names
//     (adp.DecodeVerified);
//  4. the card's id names the peer of step 1.
func (Validator) Validate(key string, value []byte) error {
	_, err := validate(key, value)
	return err
}

func validate(key string, value []byte) (*adp.Card, error) {
	return validateWith(key, value, adp.DecodeVerified)
}

// validateWith is validate with step 3 done by decode: adp.DecodeVerified,
// or a node's shared adp.Checker, which skips the signature of bytes it
// verified before.
func validateWith(key string, value []byte, decode func([]byte) (*adp.Card, error)) (*adp.Card, error) {
	// 1.
	want, err := PeerFromKey(key)
	if err != nil {
		return nil, err
	}
	// 2.
	if len(value) > adp.MaxCardSize {
		return nil, fmt.Errorf("dht: card of %d octets: %w", len(value), adp.ErrTooLarge)
	}
	// 3.
	c, err := decode(value)
	if err != nil {
		return nil, fmt.Errorf("dht: %w", err)
	}
	// 4.
	got, err := c.PeerID()
	if err != nil {
		return nil, fmt.Errorf("dht: %w", err)
	}
	if got != want {
		return nil, fmt.Errorf("%w: card of %s under key of %s", ErrKeyMismatch, got, want)
	}
	return c, nil
}

// Select returns the index of the best value under key: among the values
// that pass Validate, the card that supersedes the others under
// adp.Compare; between cards neither of which supersedes the other, the
// greater bytes. The choice depends only on the set of values, never on
// their order (equal values aside, where the first is returned). It fails
// with ErrNoValidValue when no value is valid.
func (Validator) Select(key string, values [][]byte) (int, error) {
	return selectBest(key, values, validate)
}

// selectBest is Select over a validation function (validate, or its
// memoized form).
func selectBest(key string, values [][]byte, validate func(string, []byte) (*adp.Card, error)) (int, error) {
	best := -1
	var bestCard *adp.Card
	for i, v := range values {
		c, err := validate(key, v)
		if err != nil {
			continue
		}
		if best < 0 || better(c, v, bestCard, values[best]) {
			best, bestCard = i, c
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("%w among %d", ErrNoValidValue, len(values))
	}
	return best, nil
}

// better reports whether card a (encoded as ra) beats card b (encoded as rb).
func better(a *adp.Card, ra []byte, b *adp.Card, rb []byte) bool {
	if c := adp.Compare(a, b); c != 0 {
		return c > 0
	}
	return bytes.Compare(ra, rb) > 0
}
