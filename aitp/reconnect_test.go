package aitp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestCallAfterConnectionClosed: once the connection under the client's
// association closes, the next call, idempotent or not, goes out on a new
// stream instead of failing on the dead one. Each way of losing the
// connection is repeated, since the client may or may not have noticed
// the loss by the time of the call.
func TestCallAfterConnectionClosed(t *testing.T) {
	cases := []struct {
		name      string
		drop      func(t *testing.T, hc, hs host.Host)
		reconnect bool
	}{
		{name: "client closes, call dials", drop: func(t *testing.T, hc, hs host.Host) {
			hc.Network().ClosePeer(hs.ID())
		}},
		{name: "client closes, reconnects", reconnect: true, drop: func(t *testing.T, hc, hs host.Host) {
			hc.Network().ClosePeer(hs.ID())
		}},
		{name: "server closes", drop: func(t *testing.T, hc, hs host.Host) {
			hs.Network().ClosePeer(hc.ID())
			p := hs.ID()
			polltest.For(t, 10*time.Second, "the client to see the connection closed", func() bool {
				return hc.Network().Connectedness(p) != network.Connected
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cl, hs, hc := pair(t, nil)
			var served atomic.Int64
			srv.HandleFunc("echo", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
				served.Add(1)
				return echo(ctx, w, r)
			})
			for i := range 50 {
				body := []byte(fmt.Sprint("call ", i))
				if got, err := cl.Call(ctxT(t), hs.ID(), "echo", body); err != nil || string(got) != string(body) {
					t.Fatalf("round %d, before the close: %q %v", i, got, err)
				}
				tc.drop(t, hc, hs)
				if tc.reconnect {
					connect(t, hc, hs)
				}
				if got, err := cl.Call(ctxT(t), hs.ID(), "echo", body); err != nil || string(got) != string(body) {
					t.Fatalf("round %d, first call after the close: %q %v", i, got, err)
				}
			}
			if n := served.Load(); n != 100 {
				t.Fatalf("handler ran %d times, want 100 (each call exactly once)", n)
			}
		})
	}
}

// TestConcurrentCallsAfterConnectionClosed: calls racing on an
// association whose connection just closed all succeed, each run once.
func TestConcurrentCallsAfterConnectionClosed(t *testing.T) {
	srv, cl, hs, hc := pair(t, nil)
	var served atomic.Int64
	srv.HandleFunc("echo", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		served.Add(1)
		return echo(ctx, w, r)
	})
	const rounds, callers = 10, 8
	for i := range rounds {
		if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
			t.Fatalf("round %d, before the close: %v", i, err)
		}
		hc.Network().ClosePeer(hs.ID())
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for j := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := []byte(fmt.Sprint(i, "/", j))
				got, err := cl.Call(ctxT(t), hs.ID(), "echo", body)
				if err == nil && string(got) != string(body) {
					err = fmt.Errorf("reply %q, want %q", got, body)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	}
	if n, want := served.Load(), int64(rounds*(callers+1)); n != want {
		t.Fatalf("handler ran %d times, want %d", n, want)
	}
}

// TestStreamAfterConnectionClosed: a call with a streamed reply also goes
// out on a new stream after the connection under the association closed.
func TestStreamAfterConnectionClosed(t *testing.T) {
	srv, cl, hs, hc := pair(t, nil)
	srv.HandleFunc("chunks", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		for _, c := range []string{"one", "two"} {
			if _, err := w.Write([]byte(c)); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range 20 {
		if _, err := cl.Call(ctxT(t), hs.ID(), "chunks", nil); err != nil {
			t.Fatalf("round %d, before the close: %v", i, err)
		}
		hc.Network().ClosePeer(hs.ID())
		rs, err := cl.Stream(ctxT(t), hs.ID(), "chunks", nil)
		if err != nil {
			t.Fatalf("round %d, stream after the close: %v", i, err)
		}
		var got []string
		for {
			c, err := rs.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("round %d, chunk %d: %v", i, len(got), err)
			}
			got = append(got, string(c))
		}
		rs.Close()
		if len(got) != 2 || got[0] != "one" || got[1] != "two" {
			t.Fatalf("round %d: chunks %q", i, got)
		}
	}
}

// closingHost closes its connections to a peer right after its first dial
// of that peer succeeds, as when the connection closes between the dial
// and the stream opened on it.
type closingHost struct {
	host.Host
	closed atomic.Bool
}

func (h *closingHost) Connect(ctx context.Context, ai peer.AddrInfo) error {
	if err := h.Host.Connect(ctx, ai); err != nil {
		return err
	}
	if h.closed.CompareAndSwap(false, true) {
		h.Network().ClosePeer(ai.ID)
	}
	return nil
}

// TestCallAfterConnectionClosedUnderOpen: a connection that closes after
// the dial returned it and before a stream opened on it carried no call,
// so the call, idempotent or not, goes out on a new dial and runs once.
func TestCallAfterConnectionClosedUnderOpen(t *testing.T) {
	hs, hc := newHost(t), newHost(t)
	srv, err := aitp.NewServer(hs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var served atomic.Int64
	srv.HandleFunc("echo", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		served.Add(1)
		return echo(ctx, w, r)
	})
	connect(t, hc, hs)
	ch := &closingHost{Host: hc}
	cl := aitp.NewClient(ch)
	t.Cleanup(func() { cl.Close() })
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("hi")); err != nil || string(got) != "hi" {
		t.Fatalf("call: %q %v", got, err)
	}
	if !ch.closed.Load() {
		t.Fatal("the dial's connection was never closed")
	}
	if n := served.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}
