package aitp_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/p2p/net/swarm"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestClientHonoursWindow: 20 concurrent calls against a window of 3 never
// run more than 3 handlers at once and never see BUSY.
func TestClientHonoursWindow(t *testing.T) {
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithWindow(3)})
	var running, peak atomic.Int64
	gate := make(chan struct{})
	srv.HandleFunc("work", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		v := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); v > p && !peak.CompareAndSwap(p, v); p = peak.Load() {
		}
		<-gate
		return nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := cl.Call(ctxT(t), hs.ID(), "work", nil)
			errs <- err
		}()
	}
	polltest.For(t, 10*time.Second, "three handlers running", func() bool { return running.Load() == 3 })
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p != 3 {
		t.Fatalf("peak concurrency %d, want 3", p)
	}
}

// TestWindowUpdate: a WINDOW segment shrinks the client's limit at run time.
func TestWindowUpdate(t *testing.T) {
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithWindow(8)})
	var running, peak atomic.Int64
	gate := make(chan struct{})
	srv.HandleFunc("work", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		v := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); v > p && !peak.CompareAndSwap(p, v); p = peak.Load() {
		}
		if len(r.Body) > 0 {
			<-gate
		}
		return nil
	})
	if _, err := cl.Call(ctxT(t), hs.ID(), "work", nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetWindow(1); err != nil {
		t.Fatal(err)
	}
	// The WINDOW segment travels ahead of the next REQUEST's answer; a
	// ping round trip after it guarantees the client has applied it.
	if _, err := cl.Ping(ctxT(t), hs.ID()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cl.Call(ctxT(t), hs.ID(), "work", []byte("x")); err != nil {
				t.Error(err)
			}
		}()
	}
	polltest.For(t, 10*time.Second, "one handler running", func() bool { return running.Load() == 1 })
	close(gate)
	wg.Wait()
	if p := peak.Load(); p != 1 {
		t.Fatalf("peak concurrency %d after WINDOW 1", p)
	}
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestCircuitBreaker(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	srv, cl, hs, _ := pair(t, nil, aitp.WithBreaker(3, time.Minute), aitp.WithClock(clock.Now))
	var healthy atomic.Bool
	var calls atomic.Int64
	srv.HandleFunc("flaky", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		calls.Add(1)
		if healthy.Load() {
			return nil
		}
		return errors.New("down")
	})
	srv.HandleFunc("strict", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/x", "bad")
	})
	call := func() error { _, err := cl.Call(ctxT(t), hs.ID(), "flaky", nil); return err }

	// A dial that finds no address tried nothing: a peer the client
	// knows no address of keeps a closed breaker however often it is
	// called, and is called again once it has one.
	stranger := newHost(t)
	for range 5 {
		if _, err := cl.Call(ctxT(t), stranger.ID(), "flaky", nil); !errors.Is(err, swarm.ErrNoAddresses) {
			t.Fatalf("call to a peer of no known address: %v, want ErrNoAddresses", err)
		}
	}
	if s := cl.BreakerState(stranger.ID()); s != aitp.BreakerClosed {
		t.Fatalf("after dials that found no address: %v", s)
	}

	// Caller mistakes prove the peer alive and do not trip the breaker.
	for range 5 {
		cl.Call(ctxT(t), hs.ID(), "strict", nil)
	}
	if s := cl.BreakerState(hs.ID()); s != aitp.BreakerClosed {
		t.Fatalf("after INVALID_REQUESTs: %v", s)
	}
	for i := range 3 {
		if err := call(); statusOf(t, err) != aitp.StatusError {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	if s := cl.BreakerState(hs.ID()); s != aitp.BreakerOpen {
		t.Fatalf("after 3 failures: %v", s)
	}
	before := calls.Load()
	if err := call(); !errors.Is(err, aitp.ErrCircuitOpen) {
		t.Fatalf("open breaker: %v", err)
	}
	if calls.Load() != before {
		t.Fatal("an open breaker let a call through")
	}
	// Half-open: one failed probe reopens it.
	clock.Add(time.Minute)
	if s := cl.BreakerState(hs.ID()); s != aitp.BreakerHalfOpen {
		t.Fatalf("after the cool-down: %v", s)
	}
	if err := call(); statusOf(t, err) != aitp.StatusError {
		t.Fatalf("probe: %v", err)
	}
	if s := cl.BreakerState(hs.ID()); s != aitp.BreakerOpen {
		t.Fatalf("after a failed probe: %v", s)
	}
	// A successful probe closes it.
	clock.Add(time.Minute)
	healthy.Store(true)
	if err := call(); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if s := cl.BreakerState(hs.ID()); s != aitp.BreakerClosed {
		t.Fatalf("after a good probe: %v", s)
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
}

func TestShutdownDrains(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	entered := make(chan struct{})
	release := make(chan struct{})
	srv.HandleFunc("hold", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		close(entered)
		<-release
		_, err := w.Write([]byte("done"))
		return err
	})
	srv.HandleFunc("echo", echo)
	res := make(chan error, 1)
	go func() {
		got, err := cl.Call(ctxT(t), hs.ID(), "hold", nil)
		if err == nil && string(got) != "done" {
			err = errors.New("wrong reply " + string(got))
		}
		res <- err
	}()
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctxT(t)) }()
	// New calls are refused while the in-flight call drains.
	polltest.For(t, 10*time.Second, "new calls refused", func() bool {
		_, err := cl.Call(ctxT(t), hs.ID(), "echo", nil)
		return err != nil
	})
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a call in flight", err)
	default:
	}
	close(release)
	if err := <-res; err != nil {
		t.Fatalf("in-flight call: %v", err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if st := srv.Stats(); st.Streams != 0 || st.Inflight != 0 {
		t.Fatalf("after Shutdown: %+v", st)
	}
}

func TestShutdownDeadlineAborts(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	entered := make(chan struct{})
	srv.HandleFunc("stuck", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		close(entered)
		<-ctx.Done()
		return ctx.Err()
	})
	res := make(chan error, 1)
	go func() {
		_, err := cl.Call(ctxT(t), hs.ID(), "stuck", nil)
		res <- err
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown with an ended context: %v", err)
	}
	if err := <-res; !errors.Is(err, aitp.ErrAborted) && !errors.Is(err, aitp.ErrConnLost) {
		t.Fatalf("aborted call: %v", err)
	}
}

// TestIdempotentRetry: the stream breaks under the first attempt; an
// idempotent call succeeds on a new stream, another call fails.
func TestIdempotentRetry(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	var attempts atomic.Int64
	srv.HandleFunc("once", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		if attempts.Add(1)%2 == 1 {
			hs.Network().ClosePeer(r.Remote) // the stream is reset under the call
			<-ctx.Done()
			return ctx.Err()
		}
		_, err := w.Write([]byte("second time lucky"))
		return err
	})
	got, err := cl.Call(ctxT(t), hs.ID(), "once", nil, aitp.Idempotent())
	if err != nil || string(got) != "second time lucky" {
		t.Fatalf("idempotent call: %q %v", got, err)
	}
	if n := attempts.Load(); n != 2 {
		t.Fatalf("%d attempts, want 2", n)
	}
	if _, err := cl.Call(ctxT(t), hs.ID(), "once", nil); !errors.Is(err, aitp.ErrConnLost) {
		t.Fatalf("non-idempotent call after a reset: %v", err)
	}
}

func TestIdleClose(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil, aitp.WithClientIdleTimeout(20*time.Millisecond))
	srv.HandleFunc("echo", echo)
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "the idle association to close", func() bool { return srv.Stats().Streams == 0 })
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("again")); err != nil || string(got) != "again" {
		t.Fatalf("after the idle close: %q %v", got, err)
	}

	srv2, cl2, hs2, _ := pair(t, []aitp.ServerOption{aitp.WithServerIdleTimeout(20 * time.Millisecond)})
	srv2.HandleFunc("echo", echo)
	if _, err := cl2.Call(ctxT(t), hs2.ID(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	polltest.For(t, 10*time.Second, "the server to close the idle association", func() bool { return srv2.Stats().Streams == 0 })
	if _, err := cl2.Call(ctxT(t), hs2.ID(), "echo", nil); err != nil {
		t.Fatalf("after the server's idle close: %v", err)
	}
}

func TestPingAndClose(t *testing.T) {
	_, cl, hs, _ := pair(t, nil)
	if d, err := cl.Ping(ctxT(t), hs.ID()); err != nil || d <= 0 {
		t.Fatalf("ping: %v %v", d, err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := cl.Call(ctxT(t), hs.ID(), "x", nil); !errors.Is(err, aitp.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}

// TestClientCloseAborts: closing the client aborts its associations; the
// server cancels the handlers of its calls.
func TestClientCloseAborts(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	entered := make(chan struct{})
	canceled := make(chan struct{})
	srv.HandleFunc("wait", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		close(entered)
		<-ctx.Done()
		close(canceled)
		return ctx.Err()
	})
	res := make(chan error, 1)
	go func() {
		_, err := cl.Call(ctxT(t), hs.ID(), "wait", nil)
		res <- err
	}()
	<-entered
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, aitp.ErrClosed) {
		t.Fatalf("call on a closed client: %v", err)
	}
	select {
	case <-canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not canceled by the client's ABORT")
	}
	polltest.For(t, 10*time.Second, "the server to drop the stream", func() bool { return srv.Stats().Streams == 0 })
}

// TestClientResponseLimit: a buffered reply larger than the client's limit
// fails that call with ErrStreamOverflow instead of growing without bound;
// a reply at the limit arrives whole, and the association keeps working.
func TestClientResponseLimit(t *testing.T) {
	const limit = 100_000
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithMaxResponseBody(1 << 20)}, aitp.WithClientMaxResponseBody(limit))
	srv.HandleFunc("sized", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		n := limit
		if string(r.Body) == "over" {
			n = 3 * limit
		}
		// Several writes, so the reply spans several RESPONSE messages.
		for off := 0; off < n; off += 30_000 {
			if _, err := w.Write(make([]byte, min(30_000, n-off))); err != nil {
				return err
			}
		}
		return nil
	})
	srv.HandleFunc("echo", echo)
	if _, err := cl.Call(ctxT(t), hs.ID(), "sized", []byte("over")); !errors.Is(err, aitp.ErrStreamOverflow) {
		t.Fatalf("reply over the limit: %v, want ErrStreamOverflow", err)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "sized", nil); err != nil || len(got) != limit {
		t.Fatalf("reply at the limit: %d octets, %v", len(got), err)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("after")); err != nil || string(got) != "after" {
		t.Fatalf("after an oversized reply: %q %v", got, err)
	}
}
