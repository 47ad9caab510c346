package directories

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
)

const (
	// Skill is the skill a directory peer's card carries, so that nodes
	// recognise directory peers from their cards and find them through
	// the DHT's tag providers.
	Skill = "adp/directory"
	// Interval is how often Run finds directories and advertises again.
	Interval = time.Minute
	// Timeout bounds one DHT lookup of directories, and each
	// advertisement.
	Timeout = 10 * time.Second
	// MaxFound bounds the DHT providers of Skill one Find looks at.
	MaxFound = 20
)

// Network is what a Book needs of its node.
type Network interface {
	// FindByTag returns up to max DHT providers of tag.
	FindByTag(ctx context.Context, tag string, max int) ([]peer.AddrInfo, error)
	// Fetch asks ai, whose addresses it learns, for its card, which the
	// node verifies and keeps (and so Notes).
	Fetch(ctx context.Context, ai peer.AddrInfo) (*adp.Card, error)
	// Advertise sends the node's card to p (adp.advertise).
	Advertise(ctx context.Context, p peer.ID) error
}

// Book is the directory peers a node knows. Safe for concurrent use.
type Book struct {
	self peer.ID
	nw   Network
	log  *slog.Logger

	mu    sync.Mutex
	peers map[peer.ID]string // directory peer -> its agent id
}

// New returns an empty Book of the node self; log (nil: discarded)
// receives a Debug line for each failed lookup, fetch and advertisement.
func New(self peer.ID, nw Network, log *slog.Logger) *Book {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Book{self: self, nw: nw, log: log, peers: make(map[peer.ID]string)}
}

// Note remembers c's owner as a directory peer when c carries Skill and
// is not a revocation, and forgets it otherwise. The node's own card is
// ignored.
func (b *Book) Note(c *adp.Card) {
	p, err := c.PeerID()
	if err != nil || p == b.self {
		return
	}
	isDir := slices.Contains(c.Skills, Skill) && !c.IsRevocation()
	b.mu.Lock()
	defer b.mu.Unlock()
	if isDir {
		b.peers[p] = c.ID
	} else {
		delete(b.peers, p)
	}
}

// Forget forgets agentID as a directory peer (its card left the store).
func (b *Book) Forget(agentID string) {
	p, err := adp.PeerIDFromAgentID(agentID)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.peers, p)
}

// Known returns the directory peers known now (peer -> agent id), a copy.
func (b *Book) Known() map[peer.ID]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.peers)
}

// Find looks the providers of Skill up in the DHT, within Timeout, and
// fetches the card of each one not yet known.
func (b *Book) Find(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	provs, err := b.nw.FindByTag(ctx, Skill, MaxFound)
	if err != nil {
		b.log.Debug("find directories", "err", err)
		return
	}
	known := b.Known()
	for _, ai := range provs {
		if _, ok := known[ai.ID]; ok || ai.ID == b.self {
			continue
		}
		if _, err := b.nw.Fetch(ctx, ai); err != nil {
			b.log.Debug("describe directory", "peer", ai.ID, "err", err)
		}
	}
}

// Advertise finds directories, then sends the node's card to every one
// known, each within Timeout.
func (b *Book) Advertise(ctx context.Context) {
	b.Find(ctx)
	for p := range b.Known() {
		if ctx.Err() != nil {
			return
		}
		actx, cancel := context.WithTimeout(ctx, Timeout)
		if err := b.nw.Advertise(actx, p); err != nil {
			b.log.Debug("advertise to directory", "peer", p, "err", err)
		}
		cancel()
	}
}

// Run advertises now and every Interval until ctx ends.
func (b *Book) Run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.Advertise(ctx)
		t.Reset(Interval)
	}
}
