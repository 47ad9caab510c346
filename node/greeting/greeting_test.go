package greeting_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/greeting"
)

const (
	proto = protocol.ID("/greeting-test/1")
	wait  = 10 * time.Second
)

// peers are three unconnected mocknet hosts; the second speaks proto,
// the third does not.
func peers(t *testing.T) []host.Host {
	t.Helper()
	nw, err := p2pnet.New(context.Background(), 3, p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	h := nw.Hosts()
	h[1].SetStreamHandler(proto, func(s network.Stream) { s.Reset() })
	return h
}

// recorder is the node's side of the greetings: it answers each
// advertise with the next of fail (true: an error), then stored.
type recorder struct {
	mu         sync.Mutex
	advertised []peer.ID
	identified []peer.ID
	fail       []bool
	behind     atomic.Int32
	seq        atomic.Uint64
}

func (r *recorder) config(h host.Host) greeting.Config {
	return greeting.Config{Host: h, Protocol: proto, Seq: r.seq.Load,
		Advertise: func(_ context.Context, p peer.ID) (bool, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.advertised = append(r.advertised, p)
			if len(r.fail) > 0 {
				f := r.fail[0]
				r.fail = r.fail[1:]
				if f {
					return false, errors.New("stream reset")
				}
			}
			return true, nil
		},
		Identified: func(p peer.ID) { r.mu.Lock(); r.identified = append(r.identified, p); r.mu.Unlock() },
		Behind:     func() { r.behind.Add(1) },
	}
}

func (r *recorder) count(p peer.ID) (advertised, identified int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.advertised {
		if q == p {
			advertised++
		}
	}
	for _, q := range r.identified {
		if q == p {
			identified++
		}
	}
	return advertised, identified
}

func run(t *testing.T, g *greeting.Greeter) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		g.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

func connect(t *testing.T, a, b host.Host) {
	t.Helper()
	if err := a.Connect(context.Background(), peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err != nil {
		t.Fatal(err)
	}
}

// identified waits until a's peerstore holds b's protocols.
func identified(t *testing.T, a, b host.Host) {
	t.Helper()
	polltest.For(t, wait, "identify", func() bool {
		protos, err := a.Peerstore().GetProtocols(b.ID())
		return err == nil && len(protos) > 0
	})
}

// A peer that speaks the protocol is greeted once it is identified, and
// handed to Identified; one that does not is neither.
func TestGreetsOnIdentification(t *testing.T) {
	h := peers(t)
	r := &recorder{}
	g, err := greeting.New(r.config(h[0]))
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	connect(t, h[0], h[2])
	identified(t, h[0], h[2])
	connect(t, h[0], h[1])
	polltest.For(t, wait, "the peer greeted", func() bool { a, _ := r.count(h[1].ID()); return a == 1 })
	if _, i := r.count(h[1].ID()); i < 1 || !g.Greeted(h[1].ID()) {
		t.Fatalf("greeted peer: identified %d times, Greeted %v", i, g.Greeted(h[1].ID()))
	}
	polltest.For(t, wait, "Behind after a stored greeting", func() bool { return r.behind.Load() == 1 })
	// Events arrive in order: h[2]'s identification came before h[1]'s.
	if a, i := r.count(h[2].ID()); a != 0 || i != 0 || g.Greeted(h[2].ID()) {
		t.Fatalf("a peer without the protocol: advertised %d, identified %d", a, i)
	}
}

// Peers identified before the Greeter subscribed (so no event of theirs
// reaches it) are greeted when Run starts.
func TestGreetsPeersAlreadyIdentified(t *testing.T) {
	h := peers(t)
	r := &recorder{}
	connect(t, h[0], h[1])
	identified(t, h[0], h[1])
	polltest.For(t, wait, "the protocol known", func() bool {
		protos, err := h[0].Peerstore().SupportsProtocols(h[1].ID(), proto)
		return err == nil && len(protos) > 0
	})
	g, err := greeting.New(r.config(h[0]))
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	polltest.For(t, wait, "the peer greeted", func() bool { a, _ := r.count(h[1].ID()); return a >= 1 })
}

// A failed greeting is forgotten and made again at the peer's next
// identification; a new version of the card is greeted again, an old one
// not. The identifications are emitted on the host's bus, as identify
// does, so that each happens exactly when the test says.
func TestGreetsAgain(t *testing.T) {
	h := peers(t)
	r := &recorder{fail: []bool{true}}
	g, err := greeting.New(r.config(h[0]))
	if err != nil {
		t.Fatal(err)
	}
	em, err := h[0].EventBus().Emitter(new(event.EvtPeerIdentificationCompleted))
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	run(t, g)
	p := h[1].ID()
	identify := func() {
		t.Helper()
		if err := em.Emit(event.EvtPeerIdentificationCompleted{Peer: p, Protocols: []protocol.ID{proto}}); err != nil {
			t.Fatal(err)
		}
	}
	identify()
	polltest.For(t, wait, "the failed greeting forgotten", func() bool { a, _ := r.count(p); return a == 1 && !g.Greeted(p) })
	identify()
	polltest.For(t, wait, "greeted again", func() bool { a, _ := r.count(p); return a == 2 && g.Greeted(p) })

	identify()
	polltest.For(t, wait, "identified again", func() bool { _, i := r.count(p); return i == 3 })
	if a, _ := r.count(p); a != 2 {
		t.Fatalf("the same card advertised %d times, want 2 (one failed, one stored)", a)
	}
	r.seq.Store(1)
	if g.Greeted(p) {
		t.Fatal("Greeted for a card version the peer was not sent")
	}
	identify()
	polltest.For(t, wait, "the new version greeted", func() bool { a, _ := r.count(p); return a == 3 && g.Greeted(p) })
	polltest.For(t, wait, "Behind for each stored greeting", func() bool { return r.behind.Load() == 2 })
}

func TestNewRequires(t *testing.T) {
	if _, err := greeting.New(greeting.Config{}); !errors.Is(err, greeting.ErrBadConfig) {
		t.Fatal("New with no host and no functions")
	}
}

// TestStalledGreetingsHoldNothingUp: with every greeting held by peers
// that never answer, the Greeter still reads the host's identifications
// (each is handed to Identified) and queues the peers; once the greetings
// are released, every peer is greeted.
func TestStalledGreetingsHoldNothingUp(t *testing.T) {
	const n = greeting.Concurrency + 3
	nw, err := p2pnet.New(context.Background(), n+1, p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	h := nw.Hosts()
	for _, x := range h[1:] {
		x.SetStreamHandler(proto, func(s network.Stream) { s.Reset() })
	}
	r := &recorder{}
	cfg := r.config(h[0])
	release := make(chan struct{})
	var inFlight atomic.Int32
	advertise := cfg.Advertise
	cfg.Advertise = func(ctx context.Context, p peer.ID) (bool, error) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		return advertise(ctx, p)
	}
	g, err := greeting.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	for _, x := range h[1:] {
		connect(t, h[0], x)
	}
	polltest.Until(t, wait, func() error {
		r.mu.Lock()
		got := len(r.identified)
		r.mu.Unlock()
		if got < n || inFlight.Load() != greeting.Concurrency {
			return fmt.Errorf("%d of %d peers handed to Identified, %d greetings in flight (want %d)", got, n, inFlight.Load(), greeting.Concurrency)
		}
		return nil
	})
	close(release)
	for _, x := range h[1:] {
		polltest.For(t, wait, "every peer greeted once released", func() bool { a, _ := r.count(x.ID()); return a == 1 })
	}
}

// TestIdentifyPushIsNoNewConnection: a peer's identify push (here, a new
// protocol it speaks) runs identify again on the same connection; the
// peer is not handed to Identified again (the node's card sync would
// pull its cards once more), while a peer on a new connection is.
func TestIdentifyPushIsNoNewConnection(t *testing.T) {
	h := peers(t)
	h[2].SetStreamHandler(proto, func(s network.Stream) { s.Reset() })
	r := &recorder{}
	g, err := greeting.New(r.config(h[0]))
	if err != nil {
		t.Fatal(err)
	}
	run(t, g)
	connect(t, h[0], h[1])
	polltest.For(t, wait, "the first peer identified", func() bool { _, i := r.count(h[1].ID()); return i == 1 })

	pushed := protocol.ID("/greeting-test/pushed/1")
	h[1].SetStreamHandler(pushed, func(s network.Stream) { s.Reset() })
	polltest.For(t, wait, "the push taken in", func() bool {
		protos, err := h[0].Peerstore().SupportsProtocols(h[1].ID(), pushed)
		return err == nil && len(protos) == 1
	})
	// The push's event came before the second peer's identification, and
	// the Greeter reads events in order.
	connect(t, h[0], h[2])
	polltest.For(t, wait, "the second peer identified", func() bool { _, i := r.count(h[2].ID()); return i == 1 })
	if _, i := r.count(h[1].ID()); i != 1 {
		t.Fatalf("the first peer was handed to Identified %d times, want once: a push is no new connection", i)
	}
}
