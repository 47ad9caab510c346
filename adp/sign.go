package adp

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"github.com/gowebpki/jcs"
	"github.com/libp2p/go-libp2p/core/crypto"
	pb "github.com/libp2p/go-libp2p/core/crypto/pb"
	"github.com/libp2p/go-libp2p/core/peer"
)

// sigEncoding is base64url without padding (ADP 3.2), decoded strictly so
// that each signature has exactly one text form.
var sigEncoding = base64.RawURLEncoding.Strict()

// Sign signs the card per ADP 3.2 with an Ed25519 key: it sets ID from the
// key when empty (ErrBadID if ID names another key, and normalizes it to
// the agent://k51... form otherwise), checks the card with Validate, signs
// JCS(card without "signature"), and sets Signature. Raw then holds the
// JCS form of the signed card, signature included.
//
// Sign leaves Seq and Metadata alone: bumping them is the caller's choice.
func (c *Card) Sign(sk crypto.PrivKey) error {
	if sk == nil || sk.Type() != pb.KeyType_Ed25519 {
		return ErrKeyType
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return err
	}
	own := AgentID(p)
	if c.ID == "" {
		c.ID = own
	} else {
		named, err := PeerIDFromAgentID(c.ID)
		if err != nil {
			return err
		}
		if named != p {
			return fmt.Errorf("%w: card id %s is not the signing key's %s", ErrBadID, truncate(c.ID), own)
		}
		c.ID = own
	}
	c.Signature = ""
	c.raw, c.unsigned = nil, nil
	if err := c.Validate(); err != nil {
		return err
	}
	body, err := c.appendJSON(nil, false)
	if err != nil {
		return err
	}
	canon, err := canonicalize(body)
	if err != nil {
		return err
	}
	sig, err := sk.Sign(canon)
	if err != nil {
		return err
	}
	c.Signature = sigEncoding.EncodeToString(sig)
	full, unsigned, err := insertSignature(canon, c.Signature)
	if err != nil {
		c.Signature = ""
		return err
	}
	if len(full) > MaxCardSize {
		c.Signature = ""
		return fmt.Errorf("%w: signed card is %d octets, limit %d", ErrTooLarge, len(full), MaxCardSize)
	}
	c.raw, c.unsigned = full, unsigned
	return nil
}

// insertSignature adds the signature member to a canonical (JCS) card at
// its sorted place, so that the result is the JCS form of the signed card,
// and returns the ranges of the other members. "signature" is ASCII, so
// byte order agrees with JCS's UTF-16 order when comparing with it.
func insertSignature(canon []byte, sig string) ([]byte, [][2]int, error) {
	members, err := scanObject(canon, MaxDepth)
	if err != nil {
		return nil, nil, fmt.Errorf("adp: re-reading the canonical card: %w", err)
	}
	ins := make([]byte, 0, len(sig)+16)
	ins = append(ins, `"signature":`...)
	ins = appendString(ins, sig)
	at := len(canon) - 1 // before the closing brace
	i := 0
	for ; i < len(members); i++ {
		if members[i].key > "signature" {
			at = members[i].start
			break
		}
	}
	switch {
	case i < len(members):
		ins = append(ins, ',')
	case len(members) > 0:
		ins = append([]byte{','}, ins...)
	}
	full := make([]byte, 0, len(canon)+len(ins))
	full = append(full, canon[:at]...)
	full = append(full, ins...)
	full = append(full, canon[at:]...)
	unsigned := make([][2]int, len(members))
	for j, m := range members {
		if j >= i {
			m.start += len(ins)
			m.end += len(ins)
		}
		unsigned[j] = [2]int{m.start, m.end}
	}
	return full, unsigned, nil
}

// Verify checks the signature per ADP 3.2 with the key named by the id. For
// a card that has Raw bytes, the signed content is those bytes without the
// "signature" member, canonicalized with JCS: what the signer sent, not a
// re-encoding of the decoded fields. For a card built in code it is the
// card's own encoding. Errors: ErrUnsigned, ErrBadID, ErrBadSignature.
func (c *Card) Verify() error {
	if c.Signature == "" {
		return ErrUnsigned
	}
	pub, err := PublicKeyFromAgentID(c.ID)
	if err != nil {
		return err
	}
	rawPub, err := pub.Raw()
	if err != nil || len(rawPub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: unusable public key", ErrBadID)
	}
	var sig [ed25519.SignatureSize]byte
	if !decodeSig(sig[:], c.Signature) {
		return fmt.Errorf("%w: signature is not %d octets of base64url without padding", ErrBadSignature, ed25519.SignatureSize)
	}
	// Fast path: a card that travels in canonical form (as Sign writes it)
	// is its own JCS form once the signature member is cut out, so the
	// received bytes are verified as they are. A signature that verifies
	// over these exact bytes proves they are what the key signed.
	if body := c.unsignedRaw(); body != nil {
		if looksCanonical(body) && ed25519.Verify(rawPub, body, sig[:]) {
			return nil
		}
		canon, err := canonicalize(body)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadSignature, err)
		}
		if !bytes.Equal(canon, body) && ed25519.Verify(rawPub, canon, sig[:]) {
			return nil
		}
		return &mismatchError{id: c.ID}
	}
	msg, err := c.signedBytes()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if !ed25519.Verify(rawPub, msg, sig[:]) {
		return &mismatchError{id: c.ID}
	}
	return nil
}

// mismatchError is the ErrBadSignature of a well-formed signature that
// does not verify over the card's bytes: a pure function of those bytes,
// so a Checker remembers it (see Checker).
type mismatchError struct{ id string }

func (e *mismatchError) Error() string {
	return ErrBadSignature.Error() + ": does not verify for " + truncate(e.id)
}

func (e *mismatchError) Unwrap() error { return ErrBadSignature }

// decodeSig decodes a base64url (no padding) Ed25519 signature into dst.
func decodeSig(dst []byte, s string) bool {
	if len(s) != sigEncoding.EncodedLen(ed25519.SignatureSize) {
		return false
	}
	n, err := sigEncoding.Decode(dst, []byte(s))
	return err == nil && n == ed25519.SignatureSize
}

// unsignedRaw returns Raw without its signature member, or nil when the
// card has no Raw or no signature in it.
func (c *Card) unsignedRaw() []byte {
	if c.raw == nil || c.unsigned == nil {
		return nil
	}
	n := 2
	for _, r := range c.unsigned {
		n += r[1] - r[0] + 1
	}
	body := make([]byte, 0, n)
	body = append(body, '{')
	for i, r := range c.unsigned {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, c.raw[r[0]:r[1]]...)
	}
	return append(body, '}')
}

// signedBytes returns JCS(card without signature) for a card built in
// code.
func (c *Card) signedBytes() ([]byte, error) {
	body, err := c.appendJSON(nil, false)
	if err != nil {
		return nil, err
	}
	return canonicalize(body)
}

// looksCanonical reports whether a JSON text has no whitespace outside
// strings, a cheap necessary condition for being JCS output.
func looksCanonical(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// canonicalize is the one JCS (RFC 8785) path, used to sign and to verify.
func canonicalize(doc []byte) ([]byte, error) {
	out, err := jcs.Transform(doc)
	if err != nil {
		return nil, fmt.Errorf("adp: canonicalize: %w", err)
	}
	return out, nil
}

// DecodeVerified is the gate for every card from the network: it bounds the
// size, parses, validates, and requires a valid signature (the steps of
// Checker.Check, without its memory and without an expected owner). The
// error is a *CheckError and wraps ErrTooLarge, ErrTooDeep, ErrMalformed,
// ErrInvalid (a *ValidationError), ErrUnsigned, ErrBadID or
// ErrBadSignature.
func DecodeVerified(raw []byte) (*Card, error) {
	return check(raw, "", nil)
}
