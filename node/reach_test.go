package node_test

import (
	"slices"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// TestStatusShowsConnections: nodes of a single-machine network know no
// reachability and no relay address, and every peer connection they
// report is direct.
func TestStatusShowsConnections(t *testing.T) {
	a := startNode(t, testNode{name: "a"})
	b := startNode(t, testNode{name: "b", bootstrap: []string{addrOf(t, a)}})
	polltest.For(t, 20*time.Second, "b is connected to a", func() bool { return len(b.PeerInfos()) > 0 })
	st := b.Status()
	if st.Reachability != nodeapi.ReachUnknown || len(st.RelayAddrs) != 0 {
		t.Fatalf("reachability %q, relay addresses %v: want unknown and none", st.Reachability, st.RelayAddrs)
	}
	for _, p := range b.PeerInfos() {
		if len(p.Conns) != len(p.Addrs) || len(p.Conns) == 0 || slices.ContainsFunc(p.Conns, func(k string) bool { return k != nodeapi.ConnDirect }) {
			t.Fatalf("peer %s: connections %v for addresses %v, want all direct", p.PeerID, p.Conns, p.Addrs)
		}
	}
}
