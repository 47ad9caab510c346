package invoke_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/p2pnet"
	"github.com/adpnode/adpnode/node/a2aclient"
	"github.com/adpnode/adpnode/node/invoke"
)

// noCards holds no card: every call goes over AITP.
type noCards struct{}

func (noCards) Held(string) *adp.Card { return nil }

// finder answers FindPeer with addrs, counting the lookups and keeping
// the deadline of the last.
type finder struct {
	addrs    peer.AddrInfo
	calls    atomic.Int32
	deadline atomic.Pointer[time.Time]
}

func (f *finder) FindPeer(ctx context.Context, p peer.ID) (peer.AddrInfo, error) {
	f.calls.Add(1)
	if dl, ok := ctx.Deadline(); ok {
		f.deadline.Store(&dl)
	}
	if f.addrs.ID != p {
		return peer.AddrInfo{}, errors.New("not found")
	}
	return f.addrs, nil
}

// pair returns a caller's host and a callee's, unconnected, on loopback
// TCP; the callee serves "echo" (its body back), "plain" (a reply that is
// not JSON) and "refuse" (INVALID_REQUEST).
func pair(t *testing.T) (caller, callee host.Host) {
	t.Helper()
	nw, err := p2pnet.New(t.Context(), 2, p2pnet.WithTransport(p2pnet.TCP), p2pnet.WithTopology(p2pnet.Unconnected))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close() })
	hs := nw.Hosts()
	srv, err := aitp.NewServer(hs[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.HandleFunc("echo", func(_ context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		_, err := w.Write(r.Body)
		return err
	})
	srv.HandleFunc("plain", func(_ context.Context, w aitp.ResponseWriter, _ *aitp.Request) error {
		_, err := fmt.Fprint(w, "plain text")
		return err
	})
	srv.HandleFunc("refuse", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/x", "no")
	})
	return hs[0], hs[1]
}

func newCaller(t *testing.T, h host.Host, f invoke.PeerFinder, learn func(peer.ID, string) bool) *invoke.Caller {
	t.Helper()
	client := aitp.NewClient(h)
	t.Cleanup(func() { client.Close() })
	a2a := a2aclient.New()
	t.Cleanup(func() { a2a.Close() })
	return invoke.New(invoke.Config{Host: h, Client: client, A2A: a2a, Cards: noCards{}, Finder: f, LearnAddrs: learn})
}

// TestCallRedials: a call to a peer whose addresses the caller does not
// hold succeeds once they are re-learned from its card or found in the
// DHT, and fails as unreachable, in words, when neither knows them.
func TestCallRedials(t *testing.T) {
	ctx := t.Context()
	t.Run("addresses from the card", func(t *testing.T) {
		a, b := pair(t)
		var learned atomic.Int32
		c := newCaller(t, a, &finder{}, func(p peer.ID, id string) bool {
			if p != b.ID() || id != adp.AgentID(b.ID()) {
				t.Errorf("learn %s %s", p, id)
			}
			learned.Add(1)
			a.Peerstore().AddAddrs(p, b.Addrs(), peerstore.TempAddrTTL)
			return true
		})
		reply, err := c.Call(ctx, b.ID(), "echo", []byte(`{"x":1}`))
		if err != nil || string(reply) != `{"x":1}` || learned.Load() != 1 {
			t.Fatalf("reply %s, err %v, learned %d times", reply, err, learned.Load())
		}
	})
	t.Run("addresses from the DHT", func(t *testing.T) {
		a, b := pair(t)
		f := &finder{addrs: peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}}
		c := newCaller(t, a, f, func(peer.ID, string) bool { return false })
		if _, err := c.Call(ctx, b.ID(), "echo", []byte(`{}`)); err != nil || f.calls.Load() != 1 {
			t.Fatalf("err %v after %d lookups", err, f.calls.Load())
		}
	})
	t.Run("the lookup ends with the call", func(t *testing.T) {
		a, b := pair(t)
		f := &finder{}
		c := newCaller(t, a, f, func(peer.ID, string) bool { return false })
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		callDeadline, _ := cctx.Deadline()
		c.Call(cctx, b.ID(), "echo", nil)
		if dl := f.deadline.Load(); dl == nil || dl.After(callDeadline) {
			t.Fatalf("the DHT lookup's deadline %v, want one no later than the call's %v", dl, callDeadline)
		}
	})
	t.Run("no address anywhere", func(t *testing.T) {
		a, b := pair(t)
		f := &finder{}
		c := newCaller(t, a, f, func(peer.ID, string) bool { return false })
		_, err := c.Call(ctx, b.ID(), "echo", []byte(`{}`))
		if !errors.Is(err, invoke.ErrUnreachable) || !errors.Is(err, swarm.ErrNoAddresses) ||
			!strings.Contains(err.Error(), "no address is known") || f.calls.Load() != 1 {
			t.Fatalf("err %v after %d lookups, want unreachable for want of an address", err, f.calls.Load())
		}
	})
}

// TestInvokeReplies: a reply that is not JSON reaches the caller as a
// JSON string, and an agent's refusal is its AITP status, not a failure
// to reach it.
func TestInvokeReplies(t *testing.T) {
	a, b := pair(t)
	c := newCaller(t, a, &finder{}, func(peer.ID, string) bool { return false })
	a.Peerstore().AddAddrs(b.ID(), b.Addrs(), peerstore.TempAddrTTL)
	ctx := t.Context()
	id := adp.AgentID(b.ID())
	reply, err := c.Invoke(ctx, b.ID(), id, "plain", nil)
	if err != nil || string(reply) != `"plain text"` {
		t.Fatalf("plain: %s, %v", reply, err)
	}
	_, err = c.Invoke(ctx, b.ID(), id, "refuse", nil)
	var e *aitp.Error
	if !errors.As(err, &e) || e.Status != aitp.StatusInvalidRequest || e.Path != "/x" || errors.Is(err, invoke.ErrUnreachable) {
		t.Fatalf("refuse: %v", err)
	}
	var chunks []string
	err = c.InvokeStream(ctx, b.ID(), id, "echo", []byte(`[1]`), func(ch json.RawMessage) error {
		chunks = append(chunks, string(ch))
		return nil
	})
	if err != nil || len(chunks) != 1 || chunks[0] != `[1]` {
		t.Fatalf("stream: %q, %v", chunks, err)
	}
}

func TestUnreachable(t *testing.T) {
	p := peer.ID("p")
	answer := &aitp.Error{Status: aitp.StatusBusy}
	for _, tt := range []struct {
		err         error
		unreachable bool
		words       string
	}{
		{nil, false, ""},
		{answer, false, ""},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), false, ""},
		{context.Canceled, false, ""},
		{fmt.Errorf("reply: %w", adp.ErrBadSignature), false, ""},
		{swarm.ErrNoAddresses, true, "no address is known"},
		{swarm.ErrDialBackoff, true, "waits before trying again"},
		{aitp.ErrCircuitOpen, true, "failed repeatedly"},
		{errors.New("stream reset"), true, "the connection failed or was lost"},
		{&swarm.DialError{Peer: p, Cause: swarm.ErrNoGoodAddresses, DialErrors: []swarm.TransportError{{Cause: swarm.ErrGaterDisallowedConnection}}},
			true, "once its hole punching has started, at most 10s after"},
		{&swarm.DialError{Peer: p, Cause: swarm.ErrGaterDisallowedConnection}, true, "the connection failed or was lost"},
	} {
		err := invoke.Unreachable(p, tt.err)
		if got := errors.Is(err, invoke.ErrUnreachable); got != tt.unreachable || (tt.err != nil && !errors.Is(err, tt.err)) {
			t.Errorf("Unreachable(%v) = %v: unreachable %v, want %v, and the cause kept", tt.err, err, got, tt.unreachable)
		}
		if tt.unreachable && !strings.Contains(err.Error(), tt.words) {
			t.Errorf("Unreachable(%v) says %q, want %q in it", tt.err, err, tt.words)
		}
	}
}
