package gossip

import (
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	mh "github.com/multiformats/go-multihash"
)

// MessageID is the GossipSub message ID of the cards topic
// (docs/protocol.md §8.2): the publisher's public key in libp2p's
// protobuf encoding followed by the message's seqno (8 octets,
// big-endian). The key is the digest of the identity multihash that is
// the message's from field when the key is inlined in the peer id, as an
// Ed25519 key (every card owner's) always is, and otherwise the
// message's key field.
//
// It is js-libp2p-gossipsub's default under StrictSign
// (msgIdFnStrictSign), so a stock js-libp2p peer needs no configuration;
// go-libp2p-pubsub's default (from followed by seqno) differs by the two
// octets of the multihash prefix, so a go-libp2p-pubsub peer sets this
// function (pubsub.WithMessageIdFn). Routers agree on IDs only for
// IHAVE, IWANT and IDONTWANT: with two functions, every IWANT a node
// sends for a peer's IHAVE is answered by a message of another ID, and
// GossipSub scores each as a broken promise against the honest peer.
//
// A message whose publisher key cannot be found (no from, or a hashed
// peer id and no key field: the validator rejects it anyway) gets from
// followed by seqno.
func MessageID(m *pb.Message) string {
	key := m.GetKey()
	if len(key) == 0 {
		if d, err := mh.Decode(m.GetFrom()); err == nil && d.Code == mh.IDENTITY {
			key = d.Digest
		}
	}
	if len(key) == 0 {
		key = m.GetFrom()
	}
	return string(key) + string(m.GetSeqno())
}
