package gossip_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/gossip"
)

// TestMessageIDMatchesJSLibp2p checks MessageID against a vector that
// js-libp2p-gossipsub's own default (msgIdFnStrictSign) computed, so a
// stock js-libp2p peer and a node agree on every IHAVE and IWANT.
func TestMessageIDMatchesJSLibp2p(t *testing.T) {
	raw, err := os.ReadFile("testdata/msgid-js-libp2p.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Seed, Peer, From, Seqno, ID string }
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	seed, _ := hex.DecodeString(v.Seed)
	sk, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	p, err := peer.IDFromPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != v.Peer || hex.EncodeToString([]byte(p)) != v.From {
		t.Fatalf("peer %s (%x), want %s (%s): the vector's key is not this one", p, []byte(p), v.Peer, v.From)
	}
	seqno, _ := hex.DecodeString(v.Seqno)
	got := gossip.MessageID(&pb.Message{From: []byte(p), Seqno: seqno})
	if hex.EncodeToString([]byte(got)) != v.ID {
		t.Fatalf("MessageID = %x, want js-libp2p's %s", got, v.ID)
	}
	// The key field, when a message carries one, is the key.
	pub, err := crypto.MarshalPublicKey(sk.GetPublic())
	if err != nil {
		t.Fatal(err)
	}
	if withKey := gossip.MessageID(&pb.Message{From: []byte(p), Key: pub, Seqno: seqno}); withKey != got {
		t.Fatalf("with the key field: %x, want %x", withKey, got)
	}
	// No key to be found: from, then seqno.
	hashed := []byte{0x12, 0x20, 1, 2, 3}
	if got := gossip.MessageID(&pb.Message{From: hashed, Seqno: seqno}); got != string(hashed)+string(seqno) {
		t.Fatalf("hashed peer id without key: %x", got)
	}
}
