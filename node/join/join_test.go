package join_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/node/join"
)

// rig is a Joiner on the first of three unconnected mocknet hosts, whose
// bootstrap peers are the second host, the first itself and a peer that
// does not exist. It records every call the schedule makes.
type rig struct {
	nw    *p2pnet.Network
	j     *join.Joiner
	boot  peer.AddrInfo // the second host
	ghost peer.ID

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines started through Config.Go

	mu         sync.Mutex
	dht        int
	firstPeers int
	publishes  int
	synced     []peer.ID
	warnings   []string
	published  time.Time   // when Publish was called
	syncedAt   []time.Time // when each Sync was
}

func newRig(t *testing.T) *rig {
	t.Helper()
	nw, err := p2pnet.New(context.Background(), 3, p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	r := &rig{nw: nw}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	t.Cleanup(r.stop)
	self, _ := nw.AddrInfo(0)
	r.boot, _ = nw.AddrInfo(1)
	sk, err := p2pnet.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	r.ghost, _ = peer.IDFromPrivateKey(sk)
	ghost := peer.AddrInfo{ID: r.ghost, Addrs: []ma.Multiaddr{ma.StringCast("/ip4/100.64.0.9/tcp/4001")}}
	h, _ := nw.Host(0)
	r.j, err = join.New(join.Config{
		Host:      h,
		Bootstrap: []peer.AddrInfo{r.boot, self, ghost},
		DHT:       func(context.Context) error { r.count(&r.dht); return nil },
		Go: func(f func(context.Context)) {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				f(r.ctx)
			}()
		},
		FirstPeer: func(context.Context) { r.count(&r.firstPeers) },
		Publish: func(context.Context) {
			r.count(&r.publishes)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.published = time.Now()
		},
		Sync: func(_ context.Context, p peer.ID) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.synced = append(r.synced, p)
			r.syncedAt = append(r.syncedAt, time.Now())
			return nil
		},
		PublishAfter: publishAfter,
		ResyncAfter:  resyncAfter,
		Log:          slog.New(&warnings{r: r}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The schedule of the rig's Joiner: short, and apart from each other.
const (
	publishAfter = 30 * time.Millisecond
	resyncAfter  = 60 * time.Millisecond
)

func (r *rig) count(n *int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*n++
}

// stop ends the node's lifetime and waits for what it started.
func (r *rig) stop() {
	r.cancel()
	r.wg.Wait()
}

// warnings records the messages of Warn and above.
type warnings struct{ r *rig }

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, rec slog.Record) error {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	w.r.warnings = append(w.r.warnings, rec.Message)
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

// TestDial: the reachable bootstrap peer is connected when Dial returns,
// the node's own id is not dialled, the missing peer is reported, and
// the DHT is bootstrapped once.
func TestDial(t *testing.T) {
	r := newRig(t)
	r.j.Dial(context.Background())
	h, _ := r.nw.Host(0)
	if got := h.Network().Connectedness(r.boot.ID); got != network.Connected {
		t.Fatalf("bootstrap peer %s after Dial", got)
	}
	r.stop()
	if r.dht != 1 {
		t.Errorf("DHT bootstrapped %d times, want once", r.dht)
	}
	if !slices.Equal(r.warnings, []string{"bootstrap peer unreachable"}) {
		t.Errorf("warnings %q, want one unreachable bootstrap peer (the missing one, not the node itself)", r.warnings)
	}
}

// TestRun: nothing happens before the first peer; after it, the first
// peer's work starts once, the card is published once, no sooner than
// PublishAfter after the connection, and the connected bootstrap peer is
// synced from twice, the second time no sooner than ResyncAfter after
// the publication; the missing one never.
func TestRun(t *testing.T) {
	r := newRig(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.j.Run(r.ctx)
	}()
	r.mu.Lock()
	before := r.firstPeers + r.publishes + len(r.synced)
	r.mu.Unlock()
	if before != 0 {
		t.Fatalf("%d calls before the node had a peer", before)
	}
	connected := time.Now()
	if err := r.nw.Connect(context.Background(), 0, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its schedule")
	}
	r.stop()
	if r.firstPeers != 1 || r.publishes != 1 {
		t.Errorf("first peer's work started %d times, card published %d times; want once each", r.firstPeers, r.publishes)
	}
	if !slices.Equal(r.synced, []peer.ID{r.boot.ID, r.boot.ID}) {
		t.Fatalf("synced from %v, want the bootstrap peer twice", r.synced)
	}
	// Timers never fire early, so these lower bounds hold on any machine.
	if d := r.published.Sub(connected); d < publishAfter {
		t.Errorf("published %v after the first connection, want at least %v", d, publishAfter)
	}
	second := slices.MaxFunc(r.syncedAt, time.Time.Compare)
	if d := second.Sub(r.published); d < resyncAfter {
		t.Errorf("second sync %v after the publication, want at least %v", d, resyncAfter)
	}
}

func TestNewRequires(t *testing.T) {
	nw, err := p2pnet.New(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	h, _ := nw.Host(0)
	for name, cfg := range map[string]join.Config{
		"Host": {Go: func(func(context.Context)) {}},
		"Go":   {Host: h},
	} {
		if _, err := join.New(cfg); !errors.Is(err, join.ErrBadConfig) {
			t.Errorf("New without %s: %v, want ErrBadConfig", name, err)
		}
	}
}

// TestRunEndsWithContext: a node that never gets a peer does nothing, and
// Run returns when its context ends.
func TestRunEndsWithContext(t *testing.T) {
	r := newRig(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.j.Run(r.ctx)
	}()
	r.cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return when its context ended")
	}
	r.stop()
	if r.firstPeers+r.publishes+len(r.synced) != 0 {
		t.Errorf("calls without a peer: first peer %d, publish %d, sync %v", r.firstPeers, r.publishes, r.synced)
	}
}
