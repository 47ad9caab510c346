package directories_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/directories"
)

// network holds, in memory, the DHT's providers of the directory skill
// and the cards their owners describe; it records what the Book asks.
type network struct {
	book      *directories.Book
	providers []peer.AddrInfo
	cards     map[peer.ID]*adp.Card

	mu         sync.Mutex
	fetched    []peer.ID
	advertised []peer.ID
}

func (n *network) FindByTag(_ context.Context, tag string, max int) ([]peer.AddrInfo, error) {
	if tag != directories.Skill {
		return nil, errors.New("unexpected tag " + tag)
	}
	return n.providers[:min(len(n.providers), max)], nil
}

// Fetch hands the described card to the Book, as the node's intake does.
func (n *network) Fetch(_ context.Context, ai peer.AddrInfo) (*adp.Card, error) {
	n.mu.Lock()
	n.fetched = append(n.fetched, ai.ID)
	n.mu.Unlock()
	c, ok := n.cards[ai.ID]
	if !ok {
		return nil, errors.New("no answer")
	}
	n.book.Note(c)
	return c, nil
}

func (n *network) Advertise(_ context.Context, p peer.ID) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.advertised = append(n.advertised, p)
	return nil
}

func card(t *testing.T, b byte, skills string) (*adp.Card, peer.ID) {
	t.Helper()
	c := cardtest.Card(t, b, `{"id": "ID", "name": "n", "skills": `+skills+`, "tools": [{"name": "t"}], "endpoints": []}`)
	p, err := c.PeerID()
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// TestNote: a card with the skill makes its owner a directory, a later
// card without it or a revocation unmakes it, the node's own card never
// counts, and Forget drops one.
func TestNote(t *testing.T) {
	_, self := card(t, 1, `["adp/directory"]`)
	own, _ := card(t, 1, `["adp/directory"]`) // not a revocation: only its owner keeps it out
	dir, pd := card(t, 2, `["adp/directory"]`)
	plain, _ := card(t, 3, `["nlp/translation"]`)
	dropped, _ := card(t, 2, `["nlp/translation"]`)
	other, po := card(t, 4, `["adp/directory", "nlp/translation"]`)
	revoked := cardtest.Card(t, 4, `{"id": "ID", "name": "gone", "skills": ["adp/directory"], "tools": [], "endpoints": []}`)

	b := directories.New(self, &network{}, nil)
	for _, c := range []*adp.Card{own, dir, plain, other} {
		b.Note(c)
	}
	if got := b.Known(); len(got) != 2 || got[pd] != dir.ID || got[po] != other.ID {
		t.Fatalf("known %v, want the two directories", got)
	}
	b.Note(dropped)
	b.Note(revoked)
	if got := b.Known(); len(got) != 0 {
		t.Fatalf("known %v after the skill was dropped and a card revoked", got)
	}
	b.Note(dir)
	known := b.Known()
	delete(known, pd) // a copy: the Book is unchanged
	b.Forget("not an agent id")
	if len(b.Known()) != 1 {
		t.Fatal("Known's map is the Book's own, or Forget of a bad id removed one")
	}
	b.Forget(dir.ID)
	if len(b.Known()) != 0 {
		t.Fatalf("known %v after Forget", b.Known())
	}
}

// TestAdvertise: the providers not yet known are fetched (never the node
// itself), those that turn out to be directories are advertised to, and
// so are the ones known before.
func TestAdvertise(t *testing.T) {
	_, self := card(t, 1, `["adp/directory"]`)
	knownDir, pk := card(t, 2, `["adp/directory"]`)
	newDir, pn := card(t, 3, `["adp/directory"]`)
	notDir, pp := card(t, 4, `["nlp/translation"]`)
	_, silent := card(t, 5, `["adp/directory"]`)
	nw := &network{
		providers: []peer.AddrInfo{{ID: self}, {ID: pk}, {ID: pn}, {ID: pp}, {ID: silent}},
		cards:     map[peer.ID]*adp.Card{pk: knownDir, pn: newDir, pp: notDir},
	}
	b := directories.New(self, nw, nil)
	nw.book = b
	b.Note(knownDir)
	b.Advertise(context.Background())
	slices.Sort(nw.fetched)
	wantFetched := []peer.ID{pn, pp, silent}
	slices.Sort(wantFetched)
	if !slices.Equal(nw.fetched, wantFetched) {
		t.Errorf("fetched %v, want the unknown providers %v", nw.fetched, wantFetched)
	}
	slices.Sort(nw.advertised)
	wantAdvertised := []peer.ID{pk, pn}
	slices.Sort(wantAdvertised)
	if !slices.Equal(nw.advertised, wantAdvertised) {
		t.Errorf("advertised to %v, want the directories %v", nw.advertised, wantAdvertised)
	}
}

// TestRunStops: Run advertises at once and returns when its context ends.
func TestRunStops(t *testing.T) {
	_, self := card(t, 1, `[]`)
	dir, pd := card(t, 2, `["adp/directory"]`)
	nw := &network{}
	b := directories.New(self, nw, nil)
	b.Note(dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Run(ctx)
	}()
	polltest.For(t, 10*time.Second, "Run advertised", func() bool {
		nw.mu.Lock()
		defer nw.mu.Unlock()
		return len(nw.advertised) > 0
	})
	select {
	case <-done:
		t.Fatal("Run returned before its context ended")
	default:
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if nw.advertised[0] != pd {
		t.Fatalf("advertised to %v, want %s", nw.advertised, pd)
	}
}
