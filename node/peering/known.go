package peering

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/atomicfile"
)

// maxKnownFile bounds the book file read at start.
const maxKnownFile = 1 << 20

// book is the bounded memory of the peers met: id, listen addresses and
// when they were last seen. It is safe for concurrent use.
type book struct {
	path string // "" = memory only
	max  int

	mu    sync.Mutex
	peers map[peer.ID]knownPeer
	dirty bool
}

type knownPeer struct {
	Addrs []ma.Multiaddr
	Seen  time.Time
}

// bookFile is the JSON form of the book.
type bookFile struct {
	Peers []bookEntry `json:"peers"`
}

type bookEntry struct {
	ID    string    `json:"id"`
	Addrs []string  `json:"addrs"`
	Seen  time.Time `json:"seen"`
}

// loadBook reads the book at path. A missing file is an empty book; an
// unreadable one is an empty book and an error to log.
func loadBook(path string, max int) (*book, error) {
	b := &book{path: path, max: max, peers: make(map[peer.ID]knownPeer)}
	if path == "" {
		return b, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return b, fmt.Errorf("peering: read %s: %w", path, err)
	}
	if len(raw) > maxKnownFile {
		return b, fmt.Errorf("peering: %s: %d octets, over %d", path, len(raw), maxKnownFile)
	}
	var f bookFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return b, fmt.Errorf("peering: %s: %w", path, err)
	}
	for _, e := range f.Peers {
		id, err := peer.Decode(e.ID)
		if err != nil {
			continue
		}
		var addrs []ma.Multiaddr
		for _, s := range e.Addrs[:min(len(e.Addrs), maxAddrsPerPeer)] {
			if a, err := ma.NewMultiaddr(s); err == nil {
				addrs = append(addrs, a)
			}
		}
		if len(addrs) > 0 {
			b.peers[id] = knownPeer{Addrs: addrs, Seen: e.Seen}
		}
	}
	b.trim()
	return b, nil
}

// note records that p was seen at t listening on addrs.
func (b *book) note(p peer.ID, addrs []ma.Multiaddr, t time.Time) {
	if len(addrs) == 0 {
		return
	}
	addrs = slices.Clone(addrs[:min(len(addrs), maxAddrsPerPeer)])
	b.mu.Lock()
	defer b.mu.Unlock()
	b.peers[p] = knownPeer{Addrs: addrs, Seen: t}
	b.dirty = true
	b.trim()
}

// trim drops the least recently seen peers above max. Called with mu
// held (or before the book is shared).
func (b *book) trim() {
	if len(b.peers) <= b.max {
		return
	}
	for _, ai := range b.listLocked()[b.max:] {
		delete(b.peers, ai.ID)
	}
}

// list returns the known peers, most recently seen first.
func (b *book) list() []peer.AddrInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.listLocked()
}

func (b *book) listLocked() []peer.AddrInfo {
	type seen struct {
		ai peer.AddrInfo
		t  time.Time
	}
	all := make([]seen, 0, len(b.peers))
	for id, k := range b.peers {
		all = append(all, seen{peer.AddrInfo{ID: id, Addrs: k.Addrs}, k.Seen})
	}
	slices.SortFunc(all, func(x, y seen) int {
		if c := y.t.Compare(x.t); c != 0 {
			return c
		}
		return cmp.Compare(x.ai.ID, y.ai.ID)
	})
	out := make([]peer.AddrInfo, len(all))
	for i, s := range all {
		out[i] = s.ai
	}
	return out
}

// save writes the book when it changed since the last save.
func (b *book) save() error {
	if b.path == "" {
		return nil
	}
	b.mu.Lock()
	if !b.dirty {
		b.mu.Unlock()
		return nil
	}
	var f bookFile
	for _, ai := range b.listLocked() {
		e := bookEntry{ID: ai.ID.String(), Seen: b.peers[ai.ID].Seen.UTC()}
		for _, a := range ai.Addrs {
			e.Addrs = append(e.Addrs, a.String())
		}
		f.Peers = append(f.Peers, e)
	}
	b.dirty = false
	b.mu.Unlock()
	raw, err := json.MarshalIndent(f, "", "  ")
	if err == nil {
		err = atomicfile.Write(b.path, append(raw, '\n'), 0o600)
	}
	if err != nil {
		b.mu.Lock()
		b.dirty = true
		b.mu.Unlock()
		return fmt.Errorf("peering: save known peers: %w", err)
	}
	return nil
}
