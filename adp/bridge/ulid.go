package bridge

import (
	"crypto/sha256"

	"github.com/adpnode/adpnode/adp"
)

// crockford is the Crockford Base32 alphabet ULIDs use.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidDomain separates the hash that derives a ULID from any other use of
// the agent's peer ID.
const ulidDomain = "adpnode/agentcard-ulid/v1\x00"

// AgentCardULID derives the AgentCard agent_id of an ADP agent from its
// agent id, deterministically: the 48-bit timestamp is zero and the 80
// "random" bits are the first 80 bits of
//
//	SHA-256("adpnode/agentcard-ulid/v1" || 0x00 || peer ID bytes)
//
// where the peer ID bytes are the multihash of the agent's public key. Any
// form of the id (k51..., 12D3KooW...) gives the same ULID, every export of
// the same agent gives the same agent_id, and anyone holding the card can
// recompute it. The zero timestamp marks the ULID as derived rather than
// minted at a moment.
//
// The AgentCard draft asks for a cryptographically random component so that
// identities cannot be predicted. A derived ULID is predictable by design;
// that is harmless here because an ADP agent's identity is its key: the
// signed ADP card, not the ULID, proves who the agent is, and the exported
// AgentCard keeps the ADP id under metadata[CarrierKey] for the way back.
func AgentCardULID(agentID string) (string, error) {
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(ulidDomain))
	h.Write([]byte(p))
	sum := h.Sum(nil)
	var id [16]byte // 6 octets of timestamp (zero), 10 octets of entropy
	copy(id[6:], sum[:10])
	return encodeULID(id), nil
}

// encodeULID writes 128 bits as 26 Crockford Base32 characters, most
// significant first (the first character carries the top 3 bits).
func encodeULID(id [16]byte) string {
	var out [26]byte
	// Process as a 130-bit big-endian number: 2 leading zero bits + 128.
	bit := func(i int) byte { // i-th bit of the 128-bit value, 0 = most significant
		return id[i/8] >> (7 - uint(i%8)) & 1
	}
	for c := 0; c < 26; c++ {
		var v byte
		for b := 0; b < 5; b++ {
			pos := c*5 + b - 2
			v <<= 1
			if pos >= 0 {
				v |= bit(pos)
			}
		}
		out[c] = crockford[v]
	}
	return string(out[:])
}

// isULID reports whether s is 26 Crockford Base32 characters (AgentCard
// validation rule 1; upper case only, as the rule's character class is).
// A ULID whose first character is above 7 overflows 128 bits; the rule does
// not forbid it, so neither does this check.
func isULID(s string) bool {
	if len(s) != 26 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') || c == 'I' || c == 'L' || c == 'O' || c == 'U' {
			return false
		}
	}
	return true
}
