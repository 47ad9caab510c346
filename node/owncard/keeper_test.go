package owncard_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/datadir"
	"github.com/adpnode/adpnode/node/owncard"
)

// keeperRig is a Keeper over a real data directory, with the node's
// addresses settable and every kept and changed version recorded.
type keeperRig struct {
	k    *owncard.Keeper
	sk   crypto.PrivKey
	self peer.ID
	dir  string

	mu                  sync.Mutex
	addrs               []ma.Multiaddr
	kept                []uint64 // seqs handed to Keep, with the held card's seq at that moment
	heldAt              []uint64
	changed             []uint64
	failKeep, failWrite error
}

func newKeeperRig(t *testing.T, tune func(*owncard.Config)) *keeperRig {
	t.Helper()
	r := &keeperRig{sk: cardtest.Key(t, 1), dir: t.TempDir()}
	r.self, _ = peer.IDFromPrivateKey(r.sk)
	first, err := owncard.First(&adp.Card{Name: "kept", Description: "the first version"}, r.sk, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := datadir.WriteCard(r.dir, first); err != nil {
		t.Fatal(err)
	}
	cfg := owncard.Config{
		Card: first,
		Key:  r.sk,
		Setup: func() owncard.Setup {
			r.mu.Lock()
			defer r.mu.Unlock()
			return owncard.Setup{Key: r.sk.GetPublic(), Addrs: slices.Clone(r.addrs)}
		},
		Write: func(c *adp.Card) error {
			r.mu.Lock()
			err := r.failWrite
			r.mu.Unlock()
			if err != nil {
				return err
			}
			return datadir.WriteCard(r.dir, c)
		},
		Keep: func(_ context.Context, c *adp.Card) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.failKeep != nil {
				return r.failKeep
			}
			r.kept = append(r.kept, *c.Seq)
			r.heldAt = append(r.heldAt, *r.k.Card().Seq)
			return nil
		},
		Changed: func(c *adp.Card) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.changed = append(r.changed, *c.Seq)
		},
		Now: func() time.Time { return now.Add(time.Hour) },
	}
	if tune != nil {
		tune(&cfg)
	}
	if r.k, err = owncard.NewKeeper(cfg); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *keeperRig) setAddrs(addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addrs = nil
	for _, a := range addrs {
		r.addrs = append(r.addrs, ma.StringCast(a+"/p2p/"+r.self.String()))
	}
}

func TestKeeperUpdate(t *testing.T) {
	r := newKeeperRig(t, nil)
	c, err := r.k.Update(context.Background(), func(c *adp.Card) { c.Description = "edited" })
	if err != nil {
		t.Fatal(err)
	}
	if *c.Seq != 2 || c.Description != "edited" || r.k.Card() != c {
		t.Fatalf("Update gave seq %d %q, held %p, want seq 2 \"edited\" held", *c.Seq, c.Description, r.k.Card())
	}
	if err := c.Verify(); err != nil {
		t.Fatalf("the new version does not verify: %v", err)
	}
	if got := c.Metadata.UpdatedAt; got != now.Add(time.Hour).Format(time.RFC3339) {
		t.Errorf("updated_at %s, want the keeper's clock", got)
	}
	onDisk, err := datadir.LoadCard(r.dir, r.self)
	if err != nil {
		t.Fatal(err)
	}
	if *onDisk.Seq != 2 || onDisk.Description != "edited" {
		t.Errorf("card.json holds seq %d %q", *onDisk.Seq, onDisk.Description)
	}
	// Kept before it was held, and changed after.
	if !slices.Equal(r.kept, []uint64{2}) || !slices.Equal(r.heldAt, []uint64{1}) || !slices.Equal(r.changed, []uint64{2}) {
		t.Errorf("kept %v while holding %v, changed %v; want kept [2] while holding [1], changed [2]", r.kept, r.heldAt, r.changed)
	}
}

// TestKeeperFailure: a version that cannot be written or kept is dropped,
// the held card stays, and the next version takes the seq it would have.
func TestKeeperFailure(t *testing.T) {
	r := newKeeperRig(t, nil)
	ctx := context.Background()
	errDisk, errStore := errors.New("disk full"), errors.New("store closed")
	first := r.k.Card()

	r.failWrite = errDisk
	if _, err := r.k.Update(ctx, func(c *adp.Card) { c.Description = "lost" }); !errors.Is(err, errDisk) {
		t.Fatalf("Update with a failing write: %v", err)
	}
	r.failWrite, r.failKeep = nil, errStore
	if _, err := r.k.Update(ctx, func(c *adp.Card) { c.Description = "lost" }); !errors.Is(err, errStore) {
		t.Fatalf("Update with a failing keep: %v", err)
	}
	if r.k.Card() != first || len(r.changed) != 0 {
		t.Fatalf("failed updates changed the card (seq %d) or were announced (%v)", *r.k.Card().Seq, r.changed)
	}
	r.failKeep = nil
	if _, err := r.k.Update(ctx, func(c *adp.Card) { c.ID = cardtest.Card(t, 2, `{"id": "ID", "name": "other"}`).ID }); !errors.Is(err, owncard.ErrOtherID) {
		t.Fatalf("an edit naming another agent: %v, want ErrOtherID", err)
	}
	c, err := r.k.Update(ctx, func(c *adp.Card) { c.Description = "kept" })
	if err != nil {
		t.Fatal(err)
	}
	if *c.Seq != 2 {
		t.Errorf("seq %d after three failed updates, want 2", *c.Seq)
	}
}

// TestKeeperConcurrent: updates from many goroutines make one version
// each, with seqs in the order Changed sees them.
func TestKeeperConcurrent(t *testing.T) {
	r := newKeeperRig(t, nil)
	const n = 24
	var wg sync.WaitGroup
	var reads atomic.Int64
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := r.k.Update(context.Background(), func(c *adp.Card) { c.Description = fmt.Sprint("writer ", i) }); err != nil {
				t.Error(err)
			}
		}()
		go func() { // Card while updates run
			defer wg.Done()
			if c := r.k.Card(); c.Verify() == nil {
				reads.Add(1)
			}
		}()
	}
	wg.Wait()
	want := make([]uint64, n)
	for i := range want {
		want[i] = uint64(i + 2)
	}
	if !slices.Equal(r.changed, want) || !slices.Equal(r.kept, want) {
		t.Fatalf("changed %v, kept %v; want seqs 2 to %d in order", r.changed, r.kept, n+1)
	}
	if *r.k.Card().Seq != n+1 || reads.Load() != n {
		t.Errorf("held seq %d, %d of %d reads verified", *r.k.Card().Seq, reads.Load(), n)
	}
}

func TestKeeperReplace(t *testing.T) {
	r := newKeeperRig(t, nil)
	ctx := context.Background()
	created := r.k.Card().Metadata.CreatedAt
	c, err := r.k.Replace(ctx, &adp.Card{Name: "replaced", Skills: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "replaced" || c.ID != r.k.Card().ID || *c.Seq != 2 || c.Metadata == nil || c.Metadata.CreatedAt != created {
		t.Fatalf("Replace gave %+v, want name replaced, the agent's id, seq 2, created_at %s", c, created)
	}
	if c.Endpoints != nil || c.Description != "" {
		t.Errorf("fields of the old card survived: endpoints %v, description %q", c.Endpoints, c.Description)
	}
	if _, err := r.k.Replace(ctx, nil); !errors.Is(err, owncard.ErrNoCard) {
		t.Errorf("Replace(nil): %v, want ErrNoCard", err)
	}
}

func TestKeeperReshape(t *testing.T) {
	r := newKeeperRig(t, nil)
	ctx := context.Background()
	if made, err := r.k.Reshape(ctx); err != nil || made {
		t.Fatalf("Reshape of a card that matches: %v, %v; want no version", made, err)
	}
	r.setAddrs("/ip4/10.0.0.1/tcp/4001")
	if made, err := r.k.Reshape(ctx); err != nil || !made {
		t.Fatalf("Reshape after an address change: %v, %v; want a version", made, err)
	}
	if got := owncard.Addrs(r.k.Card(), r.self); len(got) != 1 || got[0].String() != "/ip4/10.0.0.1/tcp/4001" {
		t.Errorf("card's addresses %v", got)
	}
	if made, err := r.k.Reshape(ctx); err != nil || made {
		t.Errorf("Reshape again: %v, %v; want no version", made, err)
	}
	if !slices.Equal(r.changed, []uint64{2}) {
		t.Errorf("changed %v, want [2]", r.changed)
	}
}

// closeCounter counts Close calls on the subscription it wraps.
type closeCounter struct {
	event.Subscription
	closed atomic.Int32
}

func (s *closeCounter) Close() error {
	s.closed.Add(1)
	return s.Subscription.Close()
}

// following runs r's FollowAddrs on a real event bus until stop (also
// called at the test's end), which waits for it. change gives the node
// addr as its address and emits the host's address event.
type following struct {
	sub    *closeCounter
	change func(addr string)
	stop   func()
}

func follow(t *testing.T, r *keeperRig) following {
	t.Helper()
	bus := eventbus.NewBus()
	em, err := bus.Emitter(new(event.EvtLocalAddressesUpdated))
	if err != nil {
		t.Fatal(err)
	}
	s, err := bus.Subscribe(new(event.EvtLocalAddressesUpdated))
	if err != nil {
		t.Fatal(err)
	}
	f := following{sub: &closeCounter{Subscription: s}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.k.FollowAddrs(ctx, f.sub)
	}()
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			cancel()
			<-done
			em.Close()
		})
	}
	t.Cleanup(f.stop)
	f.change = func(addr string) {
		t.Helper()
		r.setAddrs(addr)
		if err := em.Emit(event.EvtLocalAddressesUpdated{}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestFollowAddrs emits the host's address event on a real event bus:
// the card takes the new addresses once they settle, and the loop closes
// its subscription when its context ends.
func TestFollowAddrs(t *testing.T) {
	r := newKeeperRig(t, func(c *owncard.Config) { c.AddrSettle = time.Millisecond })
	f := follow(t, r)
	f.change("/ip4/10.0.0.2/udp/4001/quic-v1")
	polltest.Until(t, 10*time.Second, func() error {
		if got := owncard.Addrs(r.k.Card(), r.self); len(got) != 1 {
			return fmt.Errorf("card at seq %d has addresses %v", *r.k.Card().Seq, got)
		}
		return nil
	})
	if *r.k.Card().Seq != 2 {
		t.Errorf("seq %d, want one version for one change", *r.k.Card().Seq)
	}
	f.stop()
	if n := f.sub.closed.Load(); n != 1 {
		t.Errorf("subscription closed %d times, want once", n)
	}
}

// TestFollowAddrsTiming runs FollowAddrs on a fake clock (testing/synctest):
// a change of addresses makes a version once they have been still for
// AddrSettle, and a change within AddrMinInterval of that version waits
// for the interval to end, however many changes come meanwhile.
func TestFollowAddrsTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const settle, least = 2 * time.Second, time.Minute
		r := newKeeperRig(t, func(c *owncard.Config) {
			c.AddrSettle, c.AddrMinInterval, c.Now = settle, least, time.Now
		})
		f := follow(t, r)
		// after lets d pass on the fake clock and returns the held seq.
		after := func(d time.Duration) uint64 {
			time.Sleep(d)
			synctest.Wait()
			return *r.k.Card().Seq
		}

		f.change("/ip4/10.0.0.3/tcp/4001")
		if seq := after(settle - time.Millisecond); seq != 1 {
			t.Fatalf("a version (seq %d) before the addresses settled", seq)
		}
		if seq := after(time.Millisecond); seq != 2 {
			t.Fatalf("seq %d once the addresses settled, want 2", seq)
		}
		changed := time.Now()

		f.change("/ip4/10.0.0.4/tcp/4001")
		if seq := after(settle); seq != 2 {
			t.Fatalf("a version (seq %d) %v after the last one, within AddrMinInterval", seq, time.Since(changed))
		}
		f.change("/ip4/10.0.0.5/tcp/4001")
		if seq := after(least - time.Since(changed) - time.Millisecond); seq != 2 {
			t.Fatalf("a version (seq %d) %v after the last one, within AddrMinInterval", seq, time.Since(changed))
		}
		if seq := after(time.Millisecond); seq != 3 {
			t.Fatalf("seq %d once AddrMinInterval passed, want 3", seq)
		}
		if got := owncard.Addrs(r.k.Card(), r.self); len(got) != 1 || got[0].String() != "/ip4/10.0.0.5/tcp/4001" {
			t.Errorf("card's addresses %v, want the last change's", got)
		}
	})
}

func TestNewKeeperRequires(t *testing.T) {
	sk := cardtest.Key(t, 1)
	full := owncard.Config{
		Card:  cardtest.Signed(t, sk, 1, "kept"),
		Key:   sk,
		Setup: func() owncard.Setup { return owncard.Setup{} },
		Write: func(*adp.Card) error { return nil },
	}
	if _, err := owncard.NewKeeper(full); err != nil {
		t.Fatalf("NewKeeper with what it requires: %v", err)
	}
	for name, drop := range map[string]func(*owncard.Config){
		"Card":  func(c *owncard.Config) { c.Card = nil },
		"Key":   func(c *owncard.Config) { c.Key = nil },
		"Setup": func(c *owncard.Config) { c.Setup = nil },
		"Write": func(c *owncard.Config) { c.Write = nil },
	} {
		cfg := full
		drop(&cfg)
		if _, err := owncard.NewKeeper(cfg); !errors.Is(err, owncard.ErrBadConfig) {
			t.Errorf("NewKeeper without %s: %v, want ErrBadConfig", name, err)
		}
	}
}
