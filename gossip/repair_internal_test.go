package gossip

import (
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"

	"github.com/adpnode/adpnode/internal/polltest"
)

// TestLinksFollowConnections checks the connected set a repair round
// reads: peers connected before it starts, peers connected after, either
// way, a peer disconnected, and no change after stop.
func TestLinksFollowConnections(t *testing.T) {
	mn, err := mocknet.FullMeshLinked(4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mn.Close() })
	hs := mn.Hosts()
	a, b, c, d := hs[0], hs[1], hs[2], hs[3]
	if _, err := mn.ConnectPeers(a.ID(), b.ID()); err != nil {
		t.Fatal(err)
	}
	l, stop := followLinks(a.Network())
	defer stop()
	all := func(peer.ID) bool { return false }
	set := func() []peer.ID {
		ps := l.without(all)
		slices.Sort(ps)
		return ps
	}
	want := func(what string, ps ...peer.ID) {
		t.Helper()
		slices.Sort(ps)
		polltest.For(t, 10*time.Second, what, func() bool { return slices.Equal(set(), ps) })
	}
	want("the peer connected before", b.ID())

	if _, err := mn.ConnectPeers(a.ID(), c.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := mn.ConnectPeers(d.ID(), a.ID()); err != nil {
		t.Fatal(err)
	}
	want("peers connected after, either way", b.ID(), c.ID(), d.ID())
	if got := l.without(func(p peer.ID) bool { return p != c.ID() }); !slices.Equal(got, []peer.ID{c.ID()}) {
		t.Fatalf("without all but c: %v, want [%s]", got, c.ID())
	}

	if err := mn.DisconnectPeers(a.ID(), b.ID()); err != nil {
		t.Fatal(err)
	}
	want("b gone", c.ID(), d.ID())
	stop()
	if err := mn.DisconnectPeers(a.ID(), d.ID()); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "d disconnected", func() bool { return len(a.Network().ConnsToPeer(d.ID())) == 0 })
	if got := set(); !slices.Contains(got, d.ID()) {
		t.Fatalf("the set changed after stop: %v", got)
	}
}
