package p2phost

import (
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// PeersSpeaking returns the connected peers of h that its peerstore
// knows to speak proto (learnt by identify).
func PeersSpeaking(h host.Host, proto protocol.ID) []peer.ID {
	var out []peer.ID
	for _, p := range h.Network().Peers() {
		if protos, err := h.Peerstore().SupportsProtocols(p, proto); err == nil && len(protos) > 0 {
			out = append(out, p)
		}
	}
	return out
}
