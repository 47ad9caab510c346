package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/cardsync"
	"github.com/adpnode/adpnode/node/intake"
	"github.com/adpnode/adpnode/node/join"
	"github.com/adpnode/adpnode/node/peering"
	"github.com/adpnode/adpnode/store"
)

// fetchTimeout bounds a DHT put or get, and a card's fetch from its owner.
const fetchTimeout = 10 * time.Second

// newJoiner builds the join schedule (package node/join): the bootstrap
// peers dialled, the DHT bootstrapped, and after the first peer the
// directory loop started, the own card announced and the bootstrap peers'
// cards pulled.
func (n *Node) newJoiner(boot []peer.AddrInfo) (*join.Joiner, error) {
	return join.New(join.Config{
		Host:      n.host,
		Bootstrap: boot,
		DHT:       n.dht.Bootstrap,
		Go:        n.goLoop,
		FirstPeer: n.dirs.Run,
		Publish:   func(ctx context.Context) { n.publish(ctx, n.Card()) },
		Sync:      n.sync.Sync,
		Log:       n.log,
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

// newCardSync builds the sync on connection (package node/cardsync): each
// AITP peer the node connects to is asked for its newer cards, one of
// them every anti-entropy round, and a peer found without the own card
// has the node publish it again on the topic.
func (n *Node) newCardSync() (*cardsync.Syncer, error) {
	known := func() []string { return n.index.Digests(adp.MaxKnownCards, n.AgentID()) }
	s, err := cardsync.New(cardsync.Discover(n.client, known), n.intake,
		cardsync.IsConnected(func(p peer.ID) bool { return n.host.Network().Connectedness(p) == network.Connected }),
		cardsync.Rounds(0, n.aitpPeers),
		cardsync.Republish(n.Card, func(ctx context.Context, c *adp.Card) error { return n.gossip.PublishOwn(ctx, c) }),
		cardsync.Registerer(n.metrics.Reg),
		cardsync.Logger(n.log))
	if err != nil {
		return nil, fmt.Errorf("node: card sync: %w", err)
	}
	return s, nil
}

// aitpPeers returns the connected peers that speak AITP.
func (n *Node) aitpPeers() []peer.ID { return p2phost.PeersSpeaking(n.host, aitp.ProtocolID) }

// publish publishes c, a new version of the own card or the one held,
// on the gossip topic (where it becomes the card re-broadcast) and then,
// in the background, in the DHT. Failures are logged: the re-broadcast
// and republish loops try again.
func (n *Node) publish(ctx context.Context, c *adp.Card) {
	if err := n.gossip.PublishOwn(ctx, c); err != nil {
		if ctx.Err() == nil {
			n.log.Debug("gossip publish", "err", err)
		}
	} else {
		n.sync.Published() // a peer found without the card meanwhile gets this one
	}
	n.goLoop(func(ctx context.Context) { n.putDHT(ctx, c) })
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
