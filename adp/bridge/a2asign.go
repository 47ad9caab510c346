package bridge

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"
	"github.com/libp2p/go-libp2p/core/crypto"
	pb "github.com/libp2p/go-libp2p/core/crypto/pb"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

// A2A Agent Card signatures (A2A 1.0, Section 8.4, "Agent Card Signing").
//
// An entry of the card's signatures array is an AgentCardSignature
// {protected, signature}: the members of a JWS in the flattened JSON
// serialization (RFC 7515, Section 7.2.2) whose payload is detached. The
// payload is the card prepared as Section 8.4.1 asks (a2aPayload): the
// signatures member excluded, members at their protobuf default value
// omitted, then canonicalized with JCS (RFC 8785). The signing input is
// ASCII(BASE64URL(protected header) || "." || BASE64URL(payload)).
//
// adpnode signs with the agent's Ed25519 key, the one that signs its ADP
// card: the protected header is {"alg": "EdDSA", "kid": <agent id>, "typ":
// "JOSE"} (RFC 8037 names Ed25519 "EdDSA"), serialized in JCS form. The
// agent id embeds the public key, so a verifier needs no jku: the kid is
// the key.
const (
	A2ASignatureAlg = "EdDSA"
	A2ASignatureTyp = "JOSE"
)

// b64 is base64url without padding (RFC 7515, Section 2), decoded strictly
// so that each value has one text form.
var b64 = base64.RawURLEncoding.Strict()

// SignA2A signs an A2A AgentCard document with an Ed25519 key (A2A 1.0,
// Section 8.4.2) and returns the signed document in JCS form: the card as
// signed (members at their default value removed, see a2aPayload) with
// the new signature appended to its signatures. A signature whose kid is
// the same agent id is replaced; other signatures are kept, since they
// sign the same payload (Section 8.4.3 allows several, for key rotation).
func SignA2A(card []byte, sk crypto.PrivKey) ([]byte, error) {
	if sk == nil || sk.Type() != pb.KeyType_Ed25519 {
		return nil, adp.ErrKeyType
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		return nil, err
	}
	kid := adp.AgentID(p)
	m, err := readA2ASigned(card)
	if err != nil {
		return nil, err
	}
	sigs, err := a2aSignatures(m["signatures"])
	if err != nil {
		return nil, err
	}
	var keep []a2aSignature
	for _, s := range sigs {
		if h, err := s.header(); err != nil || h.Kid != kid {
			keep = append(keep, s)
		}
	}
	payload, err := a2aPayload(m)
	if err != nil {
		return nil, err
	}
	header, err := jcsMarshal(map[string]string{"alg": A2ASignatureAlg, "kid": kid, "typ": A2ASignatureTyp})
	if err != nil {
		return nil, err
	}
	protected := b64.EncodeToString(header)
	sig, err := sk.Sign(signingInput(protected, payload))
	if err != nil {
		return nil, err
	}
	keep = append(keep, a2aSignature{Protected: protected, Signature: b64.EncodeToString(sig)})
	signed := rawMap(payload)
	signed["signatures"], err = marshal(keep)
	if err != nil {
		return nil, err
	}
	out, err := jcsMarshal(signed)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxDocSize {
		return nil, fmt.Errorf("%w: signed card is %d octets", ErrTooLarge, len(out))
	}
	return out, nil
}

// VerifyA2A checks the signatures of an A2A AgentCard document (A2A 1.0,
// Section 8.4.3) and returns the kid of the first one that verifies. With
// pub nil the key of each signature is the agent id in its kid; otherwise
// every signature is checked with pub. Only EdDSA (Ed25519) signatures can
// verify; a protected header with crit, or b64 other than true (RFC 7797),
// is refused. The error wraps ErrA2AUnsigned when there is no signature,
// and ErrA2ASignature, with the reason of each signature, when none
// verifies.
func VerifyA2A(card []byte, pub crypto.PubKey) (string, error) {
	m, err := readA2ASigned(card)
	if err != nil {
		return "", err
	}
	sigs, err := a2aSignatures(m["signatures"])
	if err != nil {
		return "", err
	}
	if len(sigs) == 0 {
		return "", ErrA2AUnsigned
	}
	payload, err := a2aPayload(m)
	if err != nil {
		return "", err
	}
	var errs []error
	for i, s := range sigs {
		kid, err := s.verify(payload, pub)
		if err == nil {
			return kid, nil
		}
		errs = append(errs, fmt.Errorf("signatures/%d: %w", i, err))
	}
	return "", fmt.Errorf("%w: %w", ErrA2ASignature, errors.Join(errs...))
}

// a2aSignature is an AgentCardSignature.
type a2aSignature struct {
	Protected string          `json:"protected"`
	Signature string          `json:"signature"`
	Header    json.RawMessage `json:"header,omitempty"`
}

// jwsHeader holds the protected header parameters VerifyA2A reads.
type jwsHeader struct {
	Alg  string           `json:"alg"`
	Kid  string           `json:"kid"`
	Crit json.RawMessage  `json:"crit"`
	B64  *json.RawMessage `json:"b64"`
}

// header decodes the protected header.
func (s a2aSignature) header() (jwsHeader, error) {
	var h jwsHeader
	raw, err := b64.DecodeString(s.Protected)
	if err != nil {
		return h, fmt.Errorf("protected: not base64url: %w", err)
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return h, fmt.Errorf("protected: not a JSON object: %w", err)
	}
	return h, nil
}

// verify checks s over payload and returns its kid; the key is pub, or
// the agent id in kid when pub is nil.
func (s a2aSignature) verify(payload []byte, pub crypto.PubKey) (string, error) {
	h, err := s.header()
	if err != nil {
		return "", err
	}
	switch {
	case h.Alg != A2ASignatureAlg:
		return "", fmt.Errorf("alg %q, want %s", h.Alg, A2ASignatureAlg)
	case h.Kid == "":
		return "", errors.New("protected header has no kid")
	case h.Crit != nil:
		return "", errors.New("protected header has crit, which is not supported")
	case h.B64 != nil && string(*h.B64) != "true":
		return "", errors.New("unencoded payload (b64) is not supported")
	}
	key := pub
	if key == nil {
		var err error
		if key, err = adp.PublicKeyFromAgentID(h.Kid); err != nil {
			return "", fmt.Errorf("kid: %w", err)
		}
	}
	sig, err := b64.DecodeString(s.Signature)
	if err != nil {
		return "", fmt.Errorf("signature: not base64url: %w", err)
	}
	ok, err := key.Verify(signingInput(s.Protected, payload), sig)
	if err != nil || !ok {
		return "", fmt.Errorf("signature by %s does not verify", h.Kid)
	}
	return h.Kid, nil
}

// signingInput is the JWS Signing Input (RFC 7515, Section 5.1, step 5).
func signingInput(protected string, payload []byte) []byte {
	in := make([]byte, 0, len(protected)+1+base64.RawURLEncoding.EncodedLen(len(payload)))
	in = append(in, protected...)
	in = append(in, '.')
	return base64.RawURLEncoding.AppendEncode(in, payload)
}

// readA2ASigned checks a document (checkDoc) and returns the members of
// its top-level object.
func readA2ASigned(card []byte) (map[string]json.RawMessage, error) {
	if err := checkDoc(card); err != nil {
		return nil, err
	}
	m := rawMap(card)
	if m == nil {
		return nil, fmt.Errorf("%w: an A2A card is a JSON object", ErrMalformed)
	}
	return m, nil
}

// a2aSignatures decodes the signatures member (nil when absent).
func a2aSignatures(raw json.RawMessage) ([]a2aSignature, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var sigs []a2aSignature
	if err := json.Unmarshal(raw, &sigs); err != nil {
		return nil, fmt.Errorf("%w: signatures: %v", ErrMalformed, err)
	}
	return sigs, nil
}

// jcsMarshal encodes v in JCS form.
func jcsMarshal(v any) ([]byte, error) {
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// a2aPayload returns the signed content of a card (A2A 1.0, Section
// 8.4.1): the card without signatures and without the members at their
// protobuf default value (null, "", false, 0, [] or {}), except the
// members each message marks REQUIRED or optional (explicit presence),
// which stay; in JCS form. The rule is applied to the AgentCard and to the
// messages nested in it that A2A 1.0 defines (AgentInterface,
// AgentProvider, AgentCapabilities, AgentExtension, AgentSkill); the
// content of other members (security schemes, extension params) is taken
// as written.
func a2aPayload(m map[string]json.RawMessage) ([]byte, error) {
	card := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if k != "signatures" {
			card[k] = v
		}
	}
	return jcsMarshal(pruneDefaults(card, "AgentCard"))
}

// a2aMessages gives, for each A2A 1.0 message FromA2A and a2aPayload know,
// the members that stay at their default value (REQUIRED, or optional
// with explicit presence) and the message type of nested members.
var a2aMessages = map[string]struct {
	keep   []string
	nested map[string]string // member -> message type (of each element, for a list)
}{
	"AgentCard": {
		keep: []string{"name", "description", "supportedInterfaces", "version", "capabilities",
			"defaultInputModes", "defaultOutputModes", "skills", "documentationUrl", "iconUrl"},
		nested: map[string]string{"supportedInterfaces": "AgentInterface", "provider": "AgentProvider",
			"capabilities": "AgentCapabilities", "skills": "AgentSkill"},
	},
	"AgentInterface":    {keep: []string{"url", "protocolBinding", "protocolVersion"}},
	"AgentProvider":     {keep: []string{"url", "organization"}},
	"AgentCapabilities": {keep: []string{"streaming", "pushNotifications", "extendedAgentCard"}, nested: map[string]string{"extensions": "AgentExtension"}},
	"AgentExtension":    {},
	"AgentSkill":        {keep: []string{"id", "name", "description", "tags"}},
}

// pruneDefaults removes from the members m of a message of type typ those
// at their default value that the message does not keep, recursing into
// the nested messages it knows.
func pruneDefaults(m map[string]json.RawMessage, typ string) map[string]json.RawMessage {
	msg := a2aMessages[typ]
	for k, v := range m {
		if sub, ok := msg.nested[k]; ok {
			v = pruneNestedDefaults(v, sub)
			m[k] = v
		}
		if isDefault(v) && !slices.Contains(msg.keep, k) {
			delete(m, k)
		}
	}
	return m
}

// pruneNestedDefaults applies pruneDefaults to v, an object of type typ or
// a list of them; other values come back as they are.
func pruneNestedDefaults(v json.RawMessage, typ string) json.RawMessage {
	if obj := rawMap(v); obj != nil {
		out, _ := marshal(pruneDefaults(obj, typ))
		return out
	}
	var list []json.RawMessage
	if json.Unmarshal(v, &list) != nil {
		return v
	}
	for i, e := range list {
		list[i] = pruneNestedDefaults(e, typ)
	}
	out, _ := marshal(list)
	return out
}

// isDefault reports whether v is a protobuf default value in JSON: null,
// "", false, 0, [] or {}.
func isDefault(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case 'n', 'f':
		return string(t) == "null" || string(t) == "false"
	case '"':
		return string(t) == `""`
	case '[', '{':
		return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
	case 't':
		return false
	}
	var f float64
	return json.Unmarshal(t, &f) == nil && f == 0
}
