package didwba

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/multiformats/go-multibase"
)

// ed25519Multicodec prefixes an Ed25519 public key in publicKeyMultibase
// (the multicodec ed25519-pub, varint 0xed).
var ed25519Multicodec = []byte{0xed, 0x01}

// Contexts of the documents NewDocument builds (the draft's example).
var documentContext = []string{
	"https://www.w3.org/ns/did/v1",
	"https://w3id.org/security/suites/ed25519-2020/v1",
}

// Document is a DID document (W3C DID Core) with the members did:wba
// authentication reads. Authentication entries are either a reference to
// a verification method (absolute, or relative as "#key-1") or an
// embedded one.
type Document struct {
	Context            any                  `json:"@context,omitempty"`
	ID                 string               `json:"id"`
	VerificationMethod []VerificationMethod `json:"verificationMethod,omitempty"`
	Authentication     []json.RawMessage    `json:"authentication,omitempty"`
	Service            []Service            `json:"service,omitempty"`
}

// VerificationMethod is one entry of verificationMethod.
type VerificationMethod struct {
	ID                 string          `json:"id"`
	Type               string          `json:"type"`
	Controller         string          `json:"controller,omitempty"`
	PublicKeyMultibase string          `json:"publicKeyMultibase,omitempty"`
	PublicKeyBase58    string          `json:"publicKeyBase58,omitempty"`
	PublicKeyJWK       json.RawMessage `json:"publicKeyJwk,omitempty"`
}

// Service is one entry of service.
type Service struct {
	ID              string `json:"id"`
	Type            string `json:"type"`
	ServiceEndpoint string `json:"serviceEndpoint"`
}

// NewDocument builds the DID document of did for an Ed25519 key: one
// Ed25519VerificationKey2020 verification method, did#key-1, listed under
// authentication and, when agentDescription is set, an AgentDescription
// service (did#ad) pointing to the agent's ANP description.
func NewDocument(did string, pub ed25519.PublicKey, agentDescription string) (*Document, error) {
	if _, err := Parse(did); err != nil {
		return nil, err
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: public key of %d octets", ErrNoKey, len(pub))
	}
	mb, err := multibase.Encode(multibase.Base58BTC, append(append([]byte(nil), ed25519Multicodec...), pub...))
	if err != nil {
		return nil, err
	}
	vm := did + "#" + DefaultFragment
	ref, _ := json.Marshal(vm)
	d := &Document{
		Context: documentContext,
		ID:      did,
		VerificationMethod: []VerificationMethod{{
			ID: vm, Type: TypeEd25519VerificationKey2020, Controller: did, PublicKeyMultibase: mb,
		}},
		Authentication: []json.RawMessage{ref},
	}
	if agentDescription != "" {
		d.Service = []Service{{ID: did + "#" + AgentDescriptionFragment, Type: AgentDescriptionType, ServiceEndpoint: agentDescription}}
	}
	return d, nil
}

// ParseDocument decodes a DID document and checks that its id is did
// (did:wba method, 2.5.2: "Verify that the id of the parsed DID Document
// matches the did:wba DID being parsed").
func ParseDocument(data []byte, did string) (*Document, error) {
	if len(data) > MaxDocumentSize {
		return nil, ErrTooLarge
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDocument, err)
	}
	if d.ID != did {
		return nil, fmt.Errorf("%w: id %q, want %q", ErrBadDocument, d.ID, did)
	}
	return &d, nil
}

// AuthenticationKey returns the Ed25519 key of the verification method
// fragment (the header's verification_method, "key-1") or full id, which
// must be the document's own (<id>#fragment) and listed under
// authentication, as a reference to an entry of verificationMethod or
// embedded. The error wraps ErrNoKey.
func (d *Document) AuthenticationKey(method string) (ed25519.PublicKey, error) {
	want := d.expand(method)
	if !strings.HasPrefix(want, d.ID+"#") {
		return nil, fmt.Errorf("%w: %s is not a verification method of %s", ErrNoKey, want, d.ID)
	}
	for _, raw := range d.Authentication {
		vm, err := d.authenticationEntry(raw)
		if err != nil || d.expand(vm.ID) != want {
			continue
		}
		return vm.ed25519Key()
	}
	return nil, fmt.Errorf("%w: %s is not an authentication method of %s", ErrNoKey, want, d.ID)
}

// ListsKey reports whether pub is one of the document's Ed25519
// authentication keys.
func (d *Document) ListsKey(pub ed25519.PublicKey) bool {
	for _, raw := range d.Authentication {
		vm, err := d.authenticationEntry(raw)
		if err != nil {
			continue
		}
		if k, err := vm.ed25519Key(); err == nil && bytes.Equal(k, pub) {
			return true
		}
	}
	return false
}

// expand makes a verification method reference absolute: "key-1" and
// "#key-1" become <id>#key-1 (did:wba method, 2.4, item 5).
func (d *Document) expand(ref string) string {
	switch {
	case strings.HasPrefix(ref, "#"):
		return d.ID + ref
	case !strings.Contains(ref, "#") && !strings.HasPrefix(ref, "did:"):
		return d.ID + "#" + ref
	}
	return ref
}

// authenticationEntry resolves one authentication entry to its
// verification method.
func (d *Document) authenticationEntry(raw json.RawMessage) (VerificationMethod, error) {
	var ref string
	if json.Unmarshal(raw, &ref) == nil {
		id := d.expand(ref)
		for _, vm := range d.VerificationMethod {
			if d.expand(vm.ID) == id {
				return vm, nil
			}
		}
		return VerificationMethod{}, fmt.Errorf("%w: %s is not in verificationMethod", ErrNoKey, id)
	}
	var vm VerificationMethod
	if err := json.Unmarshal(raw, &vm); err != nil {
		return vm, fmt.Errorf("%w: authentication entry: %v", ErrNoKey, err)
	}
	return vm, nil
}

// jwk is an OKP public JSON Web Key (RFC 8037).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
}

// ed25519Key decodes the method's key: publicKeyMultibase (base58btc, with
// or without the ed25519-pub multicodec prefix), publicKeyBase58, or an
// OKP Ed25519 publicKeyJwk, for the Ed25519 method types and
// JsonWebKey2020.
func (vm VerificationMethod) ed25519Key() (ed25519.PublicKey, error) {
	switch vm.Type {
	case TypeEd25519VerificationKey2020, TypeEd25519VerificationKey2018, TypeMultikey, TypeJSONWebKey2020:
	default:
		return nil, fmt.Errorf("%w: %s has type %q", ErrNoKey, vm.ID, vm.Type)
	}
	var raw []byte
	switch {
	case vm.PublicKeyMultibase != "":
		enc, b, err := multibase.Decode(vm.PublicKeyMultibase)
		if err != nil || enc != multibase.Base58BTC {
			return nil, fmt.Errorf("%w: %s: publicKeyMultibase is not base58btc", ErrNoKey, vm.ID)
		}
		raw = bytes.TrimPrefix(b, ed25519Multicodec)
		if len(b) == ed25519.PublicKeySize {
			raw = b
		}
	case vm.PublicKeyBase58 != "":
		_, b, err := multibase.Decode("z" + vm.PublicKeyBase58)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: publicKeyBase58: %v", ErrNoKey, vm.ID, err)
		}
		raw = b
	case len(vm.PublicKeyJWK) > 0:
		var k jwk
		if err := json.Unmarshal(vm.PublicKeyJWK, &k); err != nil || k.Kty != "OKP" || k.Crv != "Ed25519" {
			return nil, fmt.Errorf("%w: %s: publicKeyJwk is not an OKP Ed25519 key", ErrNoKey, vm.ID)
		}
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: publicKeyJwk x: %v", ErrNoKey, vm.ID, err)
		}
		raw = b
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: %s has no Ed25519 public key", ErrNoKey, vm.ID)
	}
	return ed25519.PublicKey(raw), nil
}

// Marshal encodes d as it is served: compact JSON.
func (d *Document) Marshal() ([]byte, error) { return json.Marshal(d) }
