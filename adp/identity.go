package adp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/crypto"
	pb "github.com/libp2p/go-libp2p/core/crypto/pb"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/multiformats/go-multibase"
)

// AgentIDScheme prefixes every agent id.
const AgentIDScheme = "agent://"

// didKeyPrefix starts every did:key; ed25519PubCodec is the multicodec
// varint of ed25519-pub (0xed).
const didKeyPrefix = "did:key:"

var ed25519PubCodec = []byte{0xed, 0x01}

// AgentID returns the agent id of a peer: "agent://" followed by the peer ID
// as a CIDv1 (libp2p-key codec) in lower-case base36, the "k51..." form,
// which survives the case folding URI authorities may undergo.
func AgentID(p peer.ID) string {
	s, err := peer.ToCid(p).StringOfBase(multibase.Base36)
	if err != nil {
		// Base36 is always available; a failure means an empty peer ID.
		return AgentIDScheme
	}
	return AgentIDScheme + s
}

// PeerIDFromAgentID parses an agent id: "agent://" (scheme in any case)
// followed by a peer ID in the base36 CID form ("k51...", any case) or the
// base58 multihash form ("12D3KooW..."). The peer ID must embed an Ed25519
// public key, since the id is what verifies the card. Errors wrap ErrBadID.
func PeerIDFromAgentID(id string) (peer.ID, error) {
	if len(id) < len(AgentIDScheme) || !strings.EqualFold(id[:len(AgentIDScheme)], AgentIDScheme) {
		return "", fmt.Errorf("%w: %q does not start with %s", ErrBadID, truncate(id), AgentIDScheme)
	}
	rest := id[len(AgentIDScheme):]
	if rest == "" {
		return "", fmt.Errorf("%w: empty peer ID", ErrBadID)
	}
	if len(rest) > 128 || strings.ContainsAny(rest, "/?#@: ") {
		return "", fmt.Errorf("%w: %q is not a bare peer ID", ErrBadID, truncate(id))
	}
	var (
		p   peer.ID
		err error
	)
	if rest[0] == 'k' || rest[0] == 'K' {
		var c cid.Cid
		c, err = cid.Decode(rest)
		if err == nil {
			p, err = peer.FromCid(c)
		}
	} else {
		p, err = peer.Decode(rest)
	}
	if err != nil {
		// The decoder's own words (CID and multibase internals) mean
		// nothing to the user.
		return "", fmt.Errorf("%w: %q is not an agent id (want %sk51... or %s12D3KooW...)", ErrBadID, truncate(id), AgentIDScheme, AgentIDScheme)
	}
	pub, err := p.ExtractPublicKey()
	if err != nil {
		return "", fmt.Errorf("%w: %q does not embed a public key", ErrBadID, truncate(id))
	}
	if pub.Type() != pb.KeyType_Ed25519 {
		return "", fmt.Errorf("%w: %q names a %s key, want Ed25519", ErrBadID, truncate(id), pub.Type())
	}
	return p, nil
}

// NormalizeAgentID returns the canonical form (agent://k51..., lower case)
// of any agent id PeerIDFromAgentID accepts.
func NormalizeAgentID(id string) (string, error) {
	p, err := PeerIDFromAgentID(id)
	if err != nil {
		return "", err
	}
	return AgentID(p), nil
}

// PeerID returns the peer named by the card's id.
func (c *Card) PeerID() (peer.ID, error) {
	return PeerIDFromAgentID(c.ID)
}

// PublicKeyFromAgentID returns the Ed25519 key named by an agent id (see
// PeerIDFromAgentID, which guarantees the key's type). Errors wrap
// ErrBadID.
func PublicKeyFromAgentID(id string) (crypto.PubKey, error) {
	p, err := PeerIDFromAgentID(id)
	if err != nil {
		return nil, err
	}
	pub, err := p.ExtractPublicKey()
	if err != nil { // ruled out by PeerIDFromAgentID
		return nil, fmt.Errorf("%w: %w", ErrBadID, err)
	}
	return pub, nil
}

// DIDKey returns the did:key (did:key:z6Mk...) of an Ed25519 public key.
func DIDKey(pub crypto.PubKey) (string, error) {
	if pub == nil || pub.Type() != pb.KeyType_Ed25519 {
		return "", ErrKeyType
	}
	raw, err := pub.Raw()
	if err != nil {
		return "", err
	}
	s, err := multibase.Encode(multibase.Base58BTC, append(bytes.Clone(ed25519PubCodec), raw...))
	if err != nil {
		return "", err
	}
	return didKeyPrefix + s, nil
}

// PubKeyFromDIDKey decodes a did:key naming an Ed25519 key. Errors wrap
// ErrBadDID.
func PubKeyFromDIDKey(did string) (crypto.PubKey, error) {
	if !strings.HasPrefix(did, didKeyPrefix) {
		return nil, fmt.Errorf("%w: %q does not start with %s", ErrBadDID, truncate(did), didKeyPrefix)
	}
	s := did[len(didKeyPrefix):]
	if len(s) > 128 || !strings.HasPrefix(s, "z") {
		return nil, fmt.Errorf("%w: %q is not base58btc multibase", ErrBadDID, truncate(did))
	}
	_, data, err := multibase.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDID, err)
	}
	if len(data) != len(ed25519PubCodec)+32 || !bytes.HasPrefix(data, ed25519PubCodec) {
		return nil, fmt.Errorf("%w: %q is not an Ed25519 public key", ErrBadDID, truncate(did))
	}
	pub, err := crypto.UnmarshalEd25519PublicKey(data[len(ed25519PubCodec):])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDID, err)
	}
	return pub, nil
}

// truncate shortens hostile input quoted in error messages.
func truncate(s string) string {
	const n = 80
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
