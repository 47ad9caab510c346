package directories_test

import (
	"context"
	"errors"
	"maps"
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
	greeted    map[peer.ID]bool   // Greeted's answers
	failing    map[peer.ID]bool   // Advertise fails for these
	nets       map[peer.ID]string // NetworkOf's answers
	gate       chan struct{}      // when set, each Advertise waits for a value from it
	inFlight   int                // advertisements running now
	maxFlight  int                // the most that ran at once
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
	n.advertised = append(n.advertised, p)
	n.inFlight++
	n.maxFlight = max(n.maxFlight, n.inFlight)
	gate, fail := n.gate, n.failing[p]
	n.mu.Unlock()
	if gate != nil {
		<-gate
	}
	n.mu.Lock()
	n.inFlight--
	n.mu.Unlock()
	if fail {
		return errors.New("unreachable")
	}
	return nil
}

func (n *network) NetworkOf(p peer.ID) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nets[p]
}

func (n *network) Greeted(p peer.ID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.greeted[p]
}

// takeAdvertised returns the peers advertised to since the last call,
// sorted.
func (n *network) takeAdvertised() []peer.ID {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.advertised
	n.advertised = nil
	slices.Sort(out)
	return out
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

// dirs returns n directory cards and their peers, from seeds 10 on.
func dirs(t *testing.T, n int) ([]*adp.Card, []peer.ID) {
	t.Helper()
	var cs []*adp.Card
	var ps []peer.ID
	for i := range n {
		c, p := card(t, byte(10+i), `["adp/directory"]`)
		cs, ps = append(cs, c), append(ps, p)
	}
	return cs, ps
}

// TestBookBound: the Book keeps MaxKnown directories. Past it a new one
// takes the place of one whose advertisements failed, else of one that
// never answered, else, at most once an Interval, of one at random; a
// burst of new directories so replaces only unproven ones. A directory
// failing MaxFailures rounds in a row is forgotten.
func TestBookBound(t *testing.T) {
	const n = directories.MaxKnown
	ctx := context.Background()
	_, self := card(t, 1, `[]`)
	cs, ps := dirs(t, n+6)
	nw := &network{failing: map[peer.ID]bool{}}
	b := directories.New(self, nw, nil)
	now := time.Unix(1_700_000_000, 0)
	b.SetClock(func() time.Time { return now })
	in := func(p peer.ID) bool { _, ok := b.Known()[p]; return ok }
	for _, c := range cs[:n+1] {
		b.Note(c)
	}
	if len(b.Known()) != n || !in(ps[n]) {
		t.Fatalf("a full book of unproven directories: %d known, the new one in: %v", len(b.Known()), in(ps[n]))
	}
	known := slices.Sorted(maps.Keys(b.Known()))
	failing, other := known[0], known[1]
	nw.failing[failing] = true
	b.Advertise(ctx)
	if got := nw.takeAdvertised(); len(got) != n {
		t.Fatalf("a round advertised to %d, want %d", len(got), n)
	}
	b.Note(cs[n+1])
	if len(b.Known()) != n || !in(ps[n+1]) || in(failing) {
		t.Fatalf("the new directory did not take the failing one's place: new in %v, failing in %v", in(ps[n+1]), in(failing))
	}
	delete(nw.failing, failing)
	b.Advertise(ctx) // every one known has answered now
	nw.takeAdvertised()
	proven := b.Known()

	// A burst: the first takes a random place, the next ones replace the
	// newcomer before them, never a directory that answered.
	for _, i := range []int{n + 2, n + 3, n + 4} {
		b.Note(cs[i])
	}
	kept := 0
	for p := range proven {
		if in(p) {
			kept++
		}
	}
	if kept != n-1 || !in(ps[n+4]) || in(ps[n+2]) || in(ps[n+3]) {
		t.Fatalf("after a burst of three: %d of %d proven kept (want %d), the last newcomer in %v", kept, n, n-1, in(ps[n+4]))
	}
	b.Advertise(ctx) // the last newcomer answers too
	nw.takeAdvertised()
	now = now.Add(directories.Interval / 2)
	b.Note(cs[n+5])
	if in(ps[n+5]) {
		t.Fatal("a second directory that answered was evicted within an Interval")
	}
	now = now.Add(directories.Interval / 2)
	b.Note(cs[n+5])
	if !in(ps[n+5]) {
		t.Fatal("no place made an Interval after the last random eviction")
	}

	if !in(other) {
		other = slices.Sorted(maps.Keys(b.Known()))[0]
	}
	nw.failing[other] = true
	for round := 1; round <= directories.MaxFailures; round++ {
		if !in(other) {
			t.Fatalf("forgotten after %d failed rounds, want %d", round-1, directories.MaxFailures)
		}
		b.Advertise(ctx)
	}
	if in(other) {
		t.Fatalf("still known after %d failed rounds", directories.MaxFailures)
	}
}

// TestGreetedSkipped: a directory greeted with the current card is not
// advertised to in the first round, and is in the next.
func TestGreetedSkipped(t *testing.T) {
	_, self := card(t, 1, `[]`)
	cs, ps := dirs(t, 2)
	nw := &network{greeted: map[peer.ID]bool{ps[0]: true}}
	b := directories.New(self, nw, nil)
	for _, c := range cs {
		b.Note(c)
	}
	b.Advertise(context.Background())
	if got := nw.takeAdvertised(); !slices.Equal(got, []peer.ID{ps[1]}) {
		t.Fatalf("first round advertised to %v, want only the directory not greeted %v", got, ps[1])
	}
	b.Advertise(context.Background())
	want := slices.Clone(ps)
	slices.Sort(want)
	if got := nw.takeAdvertised(); !slices.Equal(got, want) {
		t.Fatalf("second round advertised to %v, want both", got)
	}
}

// TestAdvertiseParallel: a round advertises to Parallel directories at
// once, and no more.
func TestAdvertiseParallel(t *testing.T) {
	_, self := card(t, 1, `[]`)
	cs, _ := dirs(t, 2*directories.Parallel)
	nw := &network{gate: make(chan struct{})}
	b := directories.New(self, nw, nil)
	for _, c := range cs {
		b.Note(c)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Advertise(context.Background())
	}()
	polltest.For(t, 10*time.Second, "Parallel advertisements in flight", func() bool {
		nw.mu.Lock()
		defer nw.mu.Unlock()
		return nw.inFlight == directories.Parallel
	})
	for range len(cs) {
		nw.gate <- struct{}{}
	}
	<-done
	if nw.maxFlight != directories.Parallel || len(nw.takeAdvertised()) != len(cs) {
		t.Fatalf("at most %d at once (want %d)", nw.maxFlight, directories.Parallel)
	}
}

// TestBookNetworkShare: of the directories found on one network (when
// noted, listed or answering), the Book lists MaxPerNetwork; the others
// are kept aside (advertised to, not listed) and are the first to make
// room for a new directory. When a listed one is forgotten, one kept
// aside is listed at its next answer. Directories of no known network are
// not counted, and one is placed once Known finds its network.
func TestBookNetworkShare(t *testing.T) {
	ctx := context.Background()
	_, self := card(t, 1, `[]`)
	cs, ps := dirs(t, directories.MaxKnown+1)
	nw := &network{failing: map[peer.ID]bool{}, nets: map[peer.ID]string{}}
	b := directories.New(self, nw, nil)
	// Five from one network, one from another, two of no known network.
	for i := range 5 {
		nw.nets[ps[i]] = "198.51.100.0/24"
	}
	nw.nets[ps[5]] = "203.0.113.0/24"
	fromNet := func(net string) (listed int) {
		for p := range b.Known() {
			if nw.NetworkOf(p) == net {
				listed++
			}
		}
		return listed
	}
	for _, c := range cs[:8] {
		b.Note(c)
	}
	// Connected when noted: placed at once, before any answer.
	if n, a := len(b.Known()), fromNet("198.51.100.0/24"); n != 5 || a != directories.MaxPerNetwork {
		t.Fatalf("noted: listed %d (%d of the crowded network), want 5 (%d)", n, a, directories.MaxPerNetwork)
	}
	b.Advertise(ctx)
	if n, a, o, none := len(b.Known()), fromNet("198.51.100.0/24"), fromNet("203.0.113.0/24"), fromNet(""); n != 5 || a != directories.MaxPerNetwork || o != 1 || none != 2 {
		t.Fatalf("listed %d (%d, %d and %d of the three networks), want 5 (%d, 1 and 2)", n, a, o, none, directories.MaxPerNetwork)
	}
	if got := nw.takeAdvertised(); len(got) != 8 {
		t.Fatalf("a round advertised to %d, want every one of the 8 in the book", len(got))
	}
	b.Advertise(ctx) // those aside are advertised to again, and stay aside
	if got := nw.takeAdvertised(); len(got) != 8 || len(b.Known()) != 5 {
		t.Fatalf("second round: %d advertised, %d listed, want 8 and 5", len(got), len(b.Known()))
	}

	// Fill the book with unproven directories; one more takes the place of
	// one kept aside, not of an unproven one.
	for _, c := range cs[8:directories.MaxKnown] {
		b.Note(c)
	}
	unproven := len(b.Known()) - 5
	b.Note(cs[directories.MaxKnown])
	if got := len(b.Known()) - 5; got != unproven+1 {
		t.Fatalf("a new directory in a full book: %d unproven listed, want %d (the one evicted was kept aside)", got, unproven+1)
	}

	// A listed directory of the crowded network fails until forgotten: one
	// kept aside is listed at its next answer.
	var gone peer.ID
	for p := range b.Known() {
		if nw.NetworkOf(p) == "198.51.100.0/24" {
			gone = p
			break
		}
	}
	nw.failing[gone] = true
	for range directories.MaxFailures {
		b.Advertise(ctx)
	}
	if _, ok := b.Known()[gone]; ok {
		t.Fatal("a failing directory still listed")
	}
	b.Advertise(ctx)
	if a := fromNet("198.51.100.0/24"); a != directories.MaxPerNetwork {
		t.Fatalf("after one of its listed directories was forgotten, the network has %d listed, want %d", a, directories.MaxPerNetwork)
	}

	// A directory noted while not connected is listed; once connected
	// from the crowded network, Known keeps it aside.
	late, lp := card(t, 200, `["adp/directory"]`)
	for p := range b.Known() { // make room: forget an unproven one
		if nw.NetworkOf(p) == "" && p != lp {
			b.Forget(b.Known()[p])
			break
		}
	}
	b.Note(late)
	if _, ok := b.Known()[lp]; !ok {
		t.Fatal("a directory of no known network is not listed")
	}
	nw.mu.Lock()
	nw.nets[lp] = "198.51.100.0/24"
	nw.mu.Unlock()
	if _, ok := b.Known()[lp]; ok {
		t.Fatal("a directory found on a network with its share listed is listed")
	}
}
