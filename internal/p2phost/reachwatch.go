package p2phost

import (
	"sync"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	ma "github.com/multiformats/go-multiaddr"
)

// ReachWatch follows a host's reachability: AutoNAT's verdict, or the
// one forced by WithReachability. It is safe for concurrent use; Close
// waits for its goroutine and is idempotent.
type ReachWatch struct {
	cur      atomic.Int32 // a network.Reachability
	sub      event.Subscription
	done     chan struct{}
	once     sync.Once
	closeErr error
}

// WatchReachability subscribes to h's reachability changes. Until the
// first one it reports network.ReachabilityUnknown.
func WatchReachability(h host.Host) (*ReachWatch, error) {
	sub, err := h.EventBus().Subscribe(new(event.EvtLocalReachabilityChanged))
	if err != nil {
		return nil, err
	}
	w := &ReachWatch{sub: sub, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ev := range sub.Out() {
			w.cur.Store(int32(ev.(event.EvtLocalReachabilityChanged).Reachability))
		}
	}()
	return w, nil
}

// Reachability returns the host's reachability as last announced.
func (w *ReachWatch) Reachability() network.Reachability {
	return network.Reachability(w.cur.Load())
}

// Close ends the subscription and waits for the goroutine; every call,
// concurrent ones included, returns once it has ended.
func (w *ReachWatch) Close() error {
	w.once.Do(func() {
		w.closeErr = w.sub.Close()
		<-w.done
	})
	return w.closeErr
}

// RelayAddrs returns h's circuit relay addresses, each ending in
// /p2p/<h's peer id>: the addresses AutoRelay reserved for it.
func RelayAddrs(h host.Host) []string {
	out := []string{}
	for _, a := range h.Addrs() {
		if _, err := a.ValueForProtocol(ma.P_CIRCUIT); err == nil {
			out = append(out, a.String()+"/p2p/"+h.ID().String())
		}
	}
	return out
}
