package node

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"

	"github.com/adpnode/adpnode/adp"
)

// The card's libp2p endpoints follow the host's addresses: a node behind
// a NAT has only its private addresses when it starts and its relay
// addresses once AutoRelay holds a reservation, and a peer that dials the
// addresses of a card written at start waits for every one to time out
// (5 s for TCP) before it looks the node up in the DHT. Once the addresses
// have been still for addrSettle, the card is updated (a new seq,
// published) if its endpoints differ; at most once every addrMinInterval,
// so that addresses that flap (AutoNAT changing its mind, reservations
// renewed) do not flood the network with cards.
var (
	addrSettle      = 2 * time.Second
	addrMinInterval = time.Minute
)

// subscribeAddrs subscribes to the host's address changes. Subscribed in
// Start before the card is first shaped, so no change is missed between.
func (n *Node) subscribeAddrs() (event.Subscription, error) {
	return n.host.EventBus().Subscribe(new(event.EvtLocalAddressesUpdated), eventbus.BufSize(16))
}

// addrLoop keeps the card's libp2p endpoints on the host's addresses
// until ctx ends. It closes sub.
func (n *Node) addrLoop(ctx context.Context, sub event.Subscription) {
	defer sub.Close()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var last time.Time // the loop's last card update
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sub.Out():
			if !ok {
				return
			}
			wait := addrSettle
			if next := time.Until(last.Add(addrMinInterval)); next > wait {
				wait = next
			}
			settle.Reset(wait)
		case <-settle.C:
			if !n.needsCardUpdate(n.Card()) {
				continue
			}
			last = time.Now()
			if err := n.UpdateCard(ctx, func(*adp.Card) {}); err != nil {
				n.log.Warn("update own card to the node's addresses", "err", err)
				continue
			}
			n.log.Info("own card updated to the node's addresses", "addrs", len(n.host.Addrs()))
		}
	}
}
