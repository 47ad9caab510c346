package node

import (
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// reachability returns what the node knows of its reachability and its
// relay addresses.
func (n *Node) reachability() (string, []string) {
	relayed := []string{}
	for _, a := range n.host.Addrs() {
		if _, err := a.ValueForProtocol(ma.P_CIRCUIT); err == nil {
			relayed = append(relayed, a.String()+"/p2p/"+n.self.String())
		}
	}
	return n.reach.get(), relayed
}

// connKind says whether c is direct or relayed (nodeapi.ConnDirect,
// nodeapi.ConnRelayed).
func connKind(c network.Conn) string {
	if p2phost.IsRelayed(c) {
		return nodeapi.ConnRelayed
	}
	return nodeapi.ConnDirect
}

// reachWatch follows the host's reachability (AutoNAT's verdict, or the
// forced one). Safe for concurrent use; close waits for its goroutine.
type reachWatch struct {
	cur  atomic.Value // string
	sub  event.Subscription
	done chan struct{}
}

func newReachWatch(h host.Host) (*reachWatch, error) {
	sub, err := h.EventBus().Subscribe(new(event.EvtLocalReachabilityChanged))
	if err != nil {
		return nil, err
	}
	w := &reachWatch{sub: sub, done: make(chan struct{})}
	w.cur.Store(nodeapi.ReachUnknown)
	go func() {
		defer close(w.done)
		for ev := range sub.Out() {
			w.cur.Store(reachName(ev.(event.EvtLocalReachabilityChanged).Reachability))
		}
	}()
	return w, nil
}

func (w *reachWatch) get() string { return w.cur.Load().(string) }

func (w *reachWatch) close() error {
	err := w.sub.Close()
	<-w.done
	return err
}

func reachName(r network.Reachability) string {
	switch r {
	case network.ReachabilityPublic:
		return nodeapi.ReachPublic
	case network.ReachabilityPrivate:
		return nodeapi.ReachPrivate
	}
	return nodeapi.ReachUnknown
}
