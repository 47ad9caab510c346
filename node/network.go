package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/peering"
	"github.com/adpnode/adpnode/store"
)

// Timing of the background work.
const (
	bootstrapTimeout = 15 * time.Second
	announcePoll     = 250 * time.Millisecond // while waiting for the first peers
	fetchTimeout     = 10 * time.Second
	startPublish     = 500 * time.Millisecond  // after the first peer: publish, DHT put, sync from bootstrap
	startResync      = 1500 * time.Millisecond // after that: sync from bootstrap again
)

// bootstrap connects to the bootstrap peers in parallel, then bootstraps
// the DHT in the background (its routing-table refresh takes a while and
// nothing else waits for it). Failures are logged: the node keeps running
// and the DHT retries.
func (n *Node) bootstrap(ctx context.Context) {
	infos, _ := bootstrapInfos(n.cfg.Bootstrap)
	if len(infos) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, bootstrapTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, ai := range infos {
		if ai.ID == n.self {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := n.host.Connect(cctx, ai); err != nil {
				n.log.Warn("bootstrap peer unreachable", "peer", ai.ID, "err", err)
			}
		}()
	}
	wg.Wait()
	n.goLoop(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, bootstrapTimeout)
		defer cancel()
		if err := n.dht.Bootstrap(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("dht bootstrap", "err", err)
		}
	})
}

// newPeering builds the reconnection of the node (package node/peering):
// the bootstrap peers, the known peers kept in the data directory, the DHT
// to find moved peers again, and mDNS when asked.
func (n *Node) newPeering(boot []peer.AddrInfo) (*peering.Peering, error) {
	opts := []peering.Option{
		peering.Bootstrap(boot...),
		peering.KnownPeers(filepath.Join(n.cfg.DataDir, peering.KnownFile), 0),
		peering.WithFinder(n.dht.FindPeer),
		peering.Logger(n.log),
	}
	if n.cfg.ReconnectBackoff != (peering.Backoff{}) {
		opts = append(opts, peering.WithBackoff(n.cfg.ReconnectBackoff))
	}
	if n.cfg.MDNS {
		opts = append(opts, peering.MDNS(""))
	}
	p, err := peering.New(n.host, opts...)
	if err != nil {
		return nil, fmt.Errorf("node: peering: %w", err)
	}
	return p, nil
}

// announceLoop waits for the first peer, starts the directory loop, then,
// startPublish later, publishes the own card on the topic, puts it in the
// DHT and pulls the bootstrap peers' cards, and pulls them once more
// startResync after that. Peers that connect later get the card by the
// greeting and pull the network's cards by the sync on connection; a sync
// that finds a peer without the card has it published again (cardsync's
// Republish); the gossip package re-broadcasts it on its interval and the
// DHT package republishes it.
//
// There is no burst of publications while the network forms: with the
// greeting and the syncs it only repeated what they deliver. On a
// 20-process testnet, 6 alternating pairs of runs against a burst of
// seven (0.5, 1, 2 ... 32 s): full propagation 2.72 to 3.71 s (median
// 3.25) against 3.20 to 4.00 s (median 3.66), node CPU until then 6.8 to
// 9.0 s (median 8.5) against 8.4 to 10.9 s (median 9.3).
func (n *Node) announceLoop(ctx context.Context) {
	t := time.NewTimer(announcePoll)
	defer t.Stop()
	// after waits d and reports whether ctx is still live.
	after := func(d time.Duration) bool {
		t.Reset(d)
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	for len(n.Peers()) == 0 {
		if !after(announcePoll) {
			return
		}
	}
	n.goLoop(n.dirs.Run)
	if !after(startPublish) {
		return
	}
	if err := n.gossip.Publish(ctx, n.Card()); err != nil && ctx.Err() == nil {
		n.log.Debug("gossip publish", "err", err)
	}
	n.goLoop(func(ctx context.Context) { n.putDHT(ctx, n.Card()) })
	n.goLoop(n.syncFromBootstrap)
	if !after(startResync) {
		return
	}
	n.goLoop(n.syncFromBootstrap)
}

// newCardSync builds the sync on connection (package node/cardsync): each
// AITP peer the node connects to is asked for its newer cards, one of
// them every anti-entropy round, and a peer found without the own card
// has the node publish it again on the topic.
func (n *Node) newCardSync() (*cardsync.Syncer, error) {
	s, err := cardsync.New(cardsync.Discover(n.client), n.intake,
		cardsync.IsConnected(func(p peer.ID) bool { return n.host.Network().Connectedness(p) == network.Connected }),
		cardsync.Rounds(0, n.aitpPeers),
		cardsync.Republish(n.Card, func(ctx context.Context, c *adp.Card) error { return n.gossip.Publish(ctx, c) }),
		cardsync.Logger(n.log))
	if err != nil {
		return nil, fmt.Errorf("node: card sync: %w", err)
	}
	return s, nil
}

// aitpPeers returns the connected peers that speak AITP.
func (n *Node) aitpPeers() []peer.ID { return p2phost.PeersSpeaking(n.host, aitp.ProtocolID) }

// syncFromBootstrap asks the connected bootstrap peers for the cards they
// hold at once (cardsync's Sync: every card, best first, at most
// adp.MaxDiscoverLimit) and stores the verified newer ones: a node that
// joins gets the network's cards from the peer it joined through without
// waiting for their owners to publish again.
func (n *Node) syncFromBootstrap(ctx context.Context) {
	infos, _ := bootstrapInfos(n.cfg.Bootstrap)
	for _, ai := range infos {
		if ai.ID == n.self || n.host.Network().Connectedness(ai.ID) != network.Connected {
			continue
		}
		if err := n.sync.Sync(ctx, ai.ID); err != nil {
			n.log.Debug("sync from bootstrap peer", "peer", ai.ID, "err", err)
		}
	}
}

// publish sends c to the gossip topic and the DHT. Failures are logged: the
// re-broadcast and republish loops try again.
func (n *Node) publish(ctx context.Context, c *adp.Card) {
	if err := n.gossip.SetOwnCard(c); err != nil {
		n.log.Debug("gossip own card", "err", err)
	}
	if err := n.gossip.Publish(ctx, c); err != nil && ctx.Err() == nil {
		n.log.Debug("gossip publish", "err", err)
	}
	n.putDHT(ctx, c)
}

// putDHT puts c in the DHT, bounded in time.
func (n *Node) putDHT(ctx context.Context, c *adp.Card) {
	dctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	if err := n.dht.PutCard(dctx, c); err != nil && ctx.Err() == nil {
		n.log.Debug("dht put", "err", err)
	}
}

// onGossipCard keeps a card accepted by the gossip validator, which ran
// the intake's check. It also takes its owner's re-broadcasts of the card
// already held (gossip.OnRefresh): the same card again renews its
// freshness and keeps its provenance.
func (n *Node) onGossipCard(c *adp.Card, from peer.ID) {
	n.keep(n.ctx, c, intake.From{Source: store.SourceGossip, Origin: adp.AgentID(from), Owner: from, Network: n.networkOf(from), SyncLater: true})
}

// onDHTCard keeps a card the DHT fetched or received, checked by its
// validator through the intake's check.
func (n *Node) onDHTCard(c *adp.Card) {
	n.keep(n.ctx, c, intake.From{Source: store.SourceDHT, SyncLater: true})
}

// keep hands a checked card to the intake and reports whether it became
// the held card; failures are logged.
func (n *Node) keep(ctx context.Context, c *adp.Card, from intake.From) bool {
	stored, err := n.intake.Keep(ctx, c, from)
	if err != nil && !errors.Is(err, intake.ErrOwnCard) {
		n.log.Debug("keep card", "agent", c.ID, "err", err)
	}
	if err == nil && from.Owner != "" {
		n.feed.Heard(c.ID) // delivered by its owner: a greeting or a re-broadcast
	}
	return stored
}

// LookupCard returns the held record of agentID. A card that is missing or
// stale is fetched again, from the DHT first and then from its owner
// (adp.describe); when neither answers, a stale record is returned as is.
func (n *Node) LookupCard(ctx context.Context, agentID string) (*store.Record, error) {
	id, err := normalizeAgentID(agentID)
	if err != nil {
		return nil, err
	}
	rec, err := n.store.Card(ctx, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if errors.Is(err, store.ErrRevoked) {
		return nil, err
	}
	if rec != nil && (id == n.agentID || !rec.Stale(time.Now())) {
		return rec, nil
	}
	if ferr := n.refetch(ctx, id); ferr != nil {
		if rec != nil {
			return rec, nil // stale beats nothing; the caller sees ExpiresAt
		}
		return nil, fmt.Errorf("%w: %s (%v)", store.ErrNotFound, id, ferr)
	}
	return n.store.Card(ctx, id)
}

// refetch gets id's card from the DHT or, failing that, from its owner.
func (n *Node) refetch(ctx context.Context, id string) error {
	p, err := adp.PeerIDFromAgentID(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	// GetCard hands the card to the intake (dht.OnCard) before returning.
	c, derr := n.dht.GetCard(ctx, id)
	if derr == nil && c.ID == id {
		return nil
	}
	_, oerr := n.fetchFromOwner(ctx, p)
	if oerr == nil {
		return nil
	}
	return errors.Join(derr, oerr)
}

// networkOf names the source network of the connection to p for the
// store's quota per network (limits.NetworkOf).
func (n *Node) networkOf(p peer.ID) string { return n.limits.NetworkOf(n.host.Network(), p) }
