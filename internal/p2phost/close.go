package p2phost

import (
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
)

// CloseWait is how long Close waits for a host's own Close.
const CloseWait = 10 * time.Second

// Close closes h's connections, then h itself, waiting at most CloseWait
// for the latter; past it, Close returns an error and leaves h's Close to
// finish, or not, on its own. A node's shutdown must end, and go-libp2p's
// host Close can wait for ever: one
// was seen to stop in the AutoNAT v1 client's Close, its unsubscribe
// waiting for an event-bus lock held by an identify push blocked on a
// subscriber that no longer read. That subscriber is the observed-address
// manager's (go-libp2p v0.51 p2p/host/observedaddrs): the host's Close
// stops it first (config.closableBasicHost stops the fx app, then closes
// the host), and its event loop returns without closing its subscription,
// so once that buffer is full every identify event blocks. Close
// therefore closes the connections before the host, so that no identify
// push arrives in between; the bound is for whatever else may block.
func Close(h host.Host) error {
	return errors.Join(h.Network().Close(), closeWithin(h.Close, CloseWait))
}

// closeWithin runs closeFn and waits at most d for it (see Close).
func closeWithin(closeFn func() error, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- closeFn() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("p2phost: the libp2p host did not close within %v", d)
	}
}
