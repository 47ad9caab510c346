package directories

import (
	"context"
	"log/slog"
	"maps"
	"math/rand/v2"
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
	// MaxKnown bounds the directory peers a Book keeps. Any card can
	// claim Skill, so past it a new directory takes the place of the one
	// that failed most advertisements in a row, else of one that never
	// answered, else (at most once an Interval) of one drawn at random.
	MaxKnown = 32
	// MaxFailures is how many advertisements in a row a directory may
	// fail before the Book forgets it (its next card makes it known
	// again).
	MaxFailures = 3
	// MaxPerNetwork bounds the directories of one source network (IPv4
	// /24, IPv6 /48, as the node's rate limits count them) that the Book
	// lists: a directory found on a network that has as many listed
	// already is kept aside (advertised to, but neither listed by Known
	// nor asked by discovery) and is the first to make room for a new
	// one. So one network's many identities hold at most this many
	// places. A directory's network is its direct connection's, looked
	// at when its card is noted, when Known lists it and when it answers
	// an advertisement; one with none (not connected, relayed, loopback)
	// is not counted until it has one.
	MaxPerNetwork = 2
	// Parallel is how many advertisements one round makes at once, so
	// that a round of MaxKnown unreachable directories ends within
	// MaxKnown/Parallel × Timeout (40 s), inside Interval.
	Parallel = 8
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
	// Greeted reports whether p was sent the node's current card when it
	// connected (the greeting), or is being sent it.
	Greeted(p peer.ID) bool
	// NetworkOf returns the source network of the node's connection to p
	// ("" when there is none, or it is not counted).
	NetworkOf(p peer.ID) string
}

// Book is the directory peers a node knows. Safe for concurrent use.
type Book struct {
	self peer.ID
	nw   Network
	log  *slog.Logger

	now func() time.Time

	mu         sync.Mutex
	peers      map[peer.ID]*entry // at most MaxKnown
	lastRandom time.Time          // the last eviction of a directory that answered
}

// entry is a known directory peer.
type entry struct {
	agentID  string
	failures int    // advertisements failed in a row
	sent     bool   // advertised to, or greeted, at least once
	answered bool   // an advertisement to it succeeded
	network  string // its source network, once known
	aside    bool   // its network has MaxPerNetwork listed without it
}

// New returns an empty Book of the node self; log (nil: discarded)
// receives a Debug line for each failed lookup, fetch and advertisement.
func New(self peer.ID, nw Network, log *slog.Logger) *Book {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Book{self: self, nw: nw, log: log, now: time.Now, peers: make(map[peer.ID]*entry)}
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
	net := ""
	if isDir {
		net = b.nw.NetworkOf(p)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	defer b.classify(p, net)
	switch e := b.peers[p]; {
	case !isDir:
		delete(b.peers, p)
	case e != nil:
		e.agentID = c.ID
	case len(b.peers) < MaxKnown:
		b.peers[p] = &entry{agentID: c.ID}
	default:
		out := b.evictee()
		if out == "" {
			b.log.Debug("directory not kept: the book is full of directories that answer", "peer", p)
			return
		}
		delete(b.peers, out)
		b.peers[p] = &entry{agentID: c.ID}
	}
}

// evictee returns the known directory to make room for a new one, ""
// when none is to go: the one that failed most advertisements in a row;
// else one drawn among those kept aside (their network has MaxPerNetwork
// listed); else one drawn among those that never answered one; else, at
// most once an Interval, one drawn among all. So a burst of fake directory
// cards replaces only what is unproven or aside, and directories that
// answer (fakes among them) cannot keep others out for good. The caller
// holds b.mu and the book is not empty.
func (b *Book) evictee() peer.ID {
	var worst peer.ID
	most := 0
	var aside, unproven []peer.ID
	for p, e := range b.peers {
		if e.failures > most || e.failures == most && most > 0 && p < worst {
			worst, most = p, e.failures
		}
		switch {
		case e.aside:
			aside = append(aside, p)
		case !e.answered:
			unproven = append(unproven, p)
		}
	}
	switch now := b.now(); {
	case worst != "":
		return worst
	case len(aside) > 0:
		return aside[rand.IntN(len(aside))]
	case len(unproven) > 0:
		return unproven[rand.IntN(len(unproven))]
	case now.Sub(b.lastRandom) >= Interval:
		b.lastRandom = now
		i := rand.IntN(len(b.peers))
		for p := range b.peers {
			if i == 0 {
				return p
			}
			i--
		}
	}
	return ""
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

// Known returns the directory peers listed now (peer -> agent id), a
// copy: those kept aside for their network are not. A directory of no
// known network yet is looked at again first.
func (b *Book) Known() map[peer.ID]string {
	b.mu.Lock()
	var unplaced []peer.ID
	for p, e := range b.peers {
		if e.network == "" {
			unplaced = append(unplaced, p)
		}
	}
	b.mu.Unlock()
	nets := make(map[peer.ID]string, len(unplaced))
	for _, p := range unplaced {
		if net := b.nw.NetworkOf(p); net != "" {
			nets[p] = net
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for p, net := range nets {
		b.classify(p, net)
	}
	out := make(map[peer.ID]string, len(b.peers))
	for p, e := range b.peers {
		if !e.aside {
			out[p] = e.agentID
		}
	}
	return out
}

// members returns every directory peer in the Book, those kept aside too.
func (b *Book) members() []peer.ID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Collect(maps.Keys(b.peers))
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
	known := b.members()
	for _, ai := range provs {
		if slices.Contains(known, ai.ID) || ai.ID == b.self {
			continue
		}
		if _, err := b.nw.Fetch(ctx, ai); err != nil {
			b.log.Debug("describe directory", "peer", ai.ID, "err", err)
		}
	}
}

// Advertise finds directories, then sends the node's card to every one
// known, Parallel at a time, each within Timeout. A directory that has
// had no advertisement yet but was greeted with the current card is
// skipped this once (it has the card). A directory that fails MaxFailures
// in a row is forgotten.
func (b *Book) Advertise(ctx context.Context) {
	b.Find(ctx)
	var wg sync.WaitGroup
	slots := make(chan struct{}, Parallel)
	for _, p := range b.members() {
		if b.greetedFirst(p) {
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			actx, cancel := context.WithTimeout(ctx, Timeout)
			err := b.nw.Advertise(actx, p)
			cancel()
			if err != nil {
				b.log.Debug("advertise to directory", "peer", p, "err", err)
			}
			if ctx.Err() == nil {
				net := ""
				if err == nil {
					net = b.nw.NetworkOf(p)
				}
				b.sent(p, err == nil, net)
			}
		})
	}
	wg.Wait()
}

// greetedFirst reports whether p, not yet advertised to, was greeted with
// the current card, and then marks it as sent.
func (b *Book) greetedFirst(p peer.ID) bool {
	b.mu.Lock()
	e := b.peers[p]
	first := e != nil && !e.sent
	b.mu.Unlock()
	if !first || !b.nw.Greeted(p) {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.peers[p]; e != nil {
		e.sent = true
	}
	return true
}

// sent records the outcome of an advertisement to p, which answered
// from net when ok.
func (b *Book) sent(p peer.ID, ok bool, net string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.peers[p]
	switch {
	case e == nil:
	case ok:
		e.sent, e.answered, e.failures = true, true, 0
		b.classify(p, net)
	case e.failures+1 >= MaxFailures:
		delete(b.peers, p)
	default:
		e.failures++
	}
}

// classify records net ("" leaves the entry as it is) as p's network and
// keeps p aside when net has MaxPerNetwork listed without it. The caller
// holds b.mu.
func (b *Book) classify(p peer.ID, net string) {
	e := b.peers[p]
	if e == nil || net == "" {
		return
	}
	n := 0
	for q, o := range b.peers {
		if q != p && !o.aside && o.network == net {
			n++
		}
	}
	e.network, e.aside = net, n >= MaxPerNetwork
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
