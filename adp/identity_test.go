package adp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func TestAgentIDForms(t *testing.T) {
	sk := fixedKey(t, 1)
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	id := adp.AgentID(p)
	if !strings.HasPrefix(id, "agent://k51") || strings.ToLower(id) != id {
		t.Fatalf("AgentID = %s, want agent://k51... in lower case", id)
	}
	for _, in := range []string{
		id,
		"agent://" + p.String(),           // base58 12D3KooW...
		"AGENT://" + id[len("agent://"):], // scheme case
		"agent://" + strings.ToUpper(id[len("agent://"):]), // authority upper-cased by a URI normalizer
	} {
		got, err := adp.PeerIDFromAgentID(in)
		if err != nil {
			t.Fatalf("PeerIDFromAgentID(%s): %v", in, err)
		}
		if got != p {
			t.Fatalf("PeerIDFromAgentID(%s) = %s, want %s", in, got, p)
		}
		norm, err := adp.NormalizeAgentID(in)
		if err != nil || norm != id {
			t.Fatalf("NormalizeAgentID(%s) = %s, %v; want %s", in, norm, err, id)
		}
	}
	c := &adp.Card{ID: id}
	if got, err := c.PeerID(); err != nil || got != p {
		t.Fatalf("Card.PeerID = %s, %v", got, err)
	}
}

func TestPeerIDFromAgentIDRejects(t *testing.T) {
	_, rsaPub, err := crypto.GenerateRSAKeyPair(2048, deterministicReader{})
	if err != nil {
		t.Fatal(err)
	}
	rsaID, err := peer.IDFromPublicKey(rsaPub)
	if err != nil {
		t.Fatal(err)
	}
	_, secpPub, err := crypto.GenerateSecp256k1Key(deterministicReader{})
	if err != nil {
		t.Fatal(err)
	}
	secpID, err := peer.IDFromPublicKey(secpPub)
	if err != nil {
		t.Fatal(err)
	}
	good := adp.AgentID(mustPeer(t, 1))
	for _, in := range []string{
		"",
		"agent://",
		"translator-zh-en",
		"agent://translator-zh-en",
		"https://" + good[len("agent://"):],
		good + "/path",
		good + "?q",
		"agent://user@" + good[len("agent://"):],
		good[:len(good)-2],
		"agent://" + rsaID.String(),  // hashed key: the id cannot verify
		"agent://" + secpID.String(), // not Ed25519
		"agent://bafyreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy", // CID, not libp2p-key
		"agent://" + strings.Repeat("k", 200),
	} {
		if _, err := adp.PeerIDFromAgentID(in); !errors.Is(err, adp.ErrBadID) {
			t.Errorf("PeerIDFromAgentID(%q) = %v, want ErrBadID", in, err)
		}
	}
}

// deterministicReader yields an endless stream of one byte value, enough
// for key generation in tests.
type deterministicReader struct{}

func (deterministicReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i*7 + 3)
	}
	return len(p), nil
}

func mustPeer(t *testing.T, b byte) peer.ID {
	t.Helper()
	p, err := peer.IDFromPrivateKey(fixedKey(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDIDKey(t *testing.T) {
	// did:key test vector from the did:key method specification (Ed25519).
	const vector = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
	pub, err := adp.PubKeyFromDIDKey(vector)
	if err != nil {
		t.Fatal(err)
	}
	back, err := adp.DIDKey(pub)
	if err != nil || back != vector {
		t.Fatalf("DIDKey = %s, %v; want %s", back, err, vector)
	}
	sk := fixedKey(t, 2)
	did, err := adp.DIDKey(sk.GetPublic())
	if err != nil || !strings.HasPrefix(did, "did:key:z6Mk") {
		t.Fatalf("DIDKey = %s, %v", did, err)
	}
	got, err := adp.PubKeyFromDIDKey(did)
	if err != nil || !got.Equals(sk.GetPublic()) {
		t.Fatalf("PubKeyFromDIDKey round trip: %v", err)
	}
	// did:key <-> peer ID <-> agent id.
	p, err := peer.IDFromPublicKey(got)
	if err != nil || p != mustPeer(t, 2) {
		t.Fatalf("peer from did:key: %s %v", p, err)
	}
	for _, bad := range []string{
		"", "did:web:example.com", "did:key:", "did:key:6Mk", "did:key:zzzz",
		"did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme", // secp256k1
	} {
		if _, err := adp.PubKeyFromDIDKey(bad); !errors.Is(err, adp.ErrBadDID) {
			t.Errorf("PubKeyFromDIDKey(%q) = %v, want ErrBadDID", bad, err)
		}
	}
	_, secpPub, _ := crypto.GenerateSecp256k1Key(deterministicReader{})
	if _, err := adp.DIDKey(secpPub); !errors.Is(err, adp.ErrKeyType) {
		t.Errorf("DIDKey(secp256k1) = %v", err)
	}
}
