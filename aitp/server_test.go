package aitp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

func statusOf(t *testing.T, err error) aitp.Status {
	t.Helper()
	st, ok := aitp.StatusOf(err)
	if !ok {
		t.Fatalf("want an *aitp.Error, got %v", err)
	}
	return st
}

func TestStatusCodes(t *testing.T) {
	var denied peer.ID
	srv, cl, hs, hc := pair(t, []aitp.ServerOption{
		aitp.WithHandlerTimeout(100 * time.Millisecond),
		aitp.WithAuthorizer(func(ctx context.Context, remote peer.ID, method string) error {
			if method == "secret" && remote == denied {
				return errors.New("not for you")
			}
			return nil
		}),
	})
	denied = hc.ID()
	srv.HandleFunc("ok", echo)
	srv.HandleFunc("fail", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		return errors.New("disk on fire")
	})
	srv.HandleFunc("slow", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		<-ctx.Done()
		return ctx.Err()
	})
	srv.HandleFunc("secret", echo)
	srv.HandleFunc("validate", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/tools/0/name", "name is required")
	})
	srv.HandleFunc("future", func(context.Context, aitp.ResponseWriter, *aitp.Request) error {
		return &aitp.Error{Status: 42, Code: "teapot", Message: "short and stout"}
	})
	block := make(chan struct{})
	defer close(block)
	srv.HandleFunc("block", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil
	})

	if got, err := cl.Call(ctxT(t), hs.ID(), "ok", []byte("hi")); err != nil || string(got) != "hi" {
		t.Fatalf("OK: %q %v", got, err)
	}
	cases := []struct {
		method string
		want   aitp.Status
		code   string
		path   string
	}{
		{"fail", aitp.StatusError, aitp.CodeInternal, ""},
		{"slow", aitp.StatusTimeout, aitp.CodeTimeout, ""},
		{"missing", aitp.StatusNotFound, aitp.CodeNotFound, ""},
		{"secret", aitp.StatusUnauthorized, aitp.CodeUnauthorized, ""},
		{"validate", aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/tools/0/name"},
		{"future", 42, "teapot", ""},
	}
	for _, c := range cases {
		_, err := cl.Call(ctxT(t), hs.ID(), c.method, nil)
		var e *aitp.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: want *aitp.Error, got %v", c.method, err)
		}
		if e.Status != c.want || e.Code != c.code || e.Path != c.path {
			t.Fatalf("%s: got status %v code %q path %q, want %v %q %q", c.method, e.Status, e.Code, e.Path, c.want, c.code, c.path)
		}
		// Plain errors stay local: their text may name files or addresses.
		if strings.Contains(e.Message, "disk on fire") || strings.Contains(e.Message, "not for you") {
			t.Fatalf("%s: local error text reached the caller: %q", c.method, e.Message)
		}
	}

	// BUSY: a peer that ignores the window (raw, no queueing).
	if err := srv.SetWindow(2); err != nil {
		t.Fatal(err)
	}
	rc := dialRaw(t, hc, hs.ID())
	if w := rc.open(7); w != 2 {
		t.Fatalf("ACCEPT window %d, want 2", w)
	}
	for id := uint32(1); id <= 3; id++ {
		rc.send(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 7, RequestID: id, Method: []byte("block")})
	}
	s := rc.mustRecv()
	if s.Type != aitp.TypeResponse || s.RequestID != 3 || s.Status != aitp.StatusBusy {
		t.Fatalf("third request: got %v id %d status %v, want BUSY for 3", s.Type, s.RequestID, s.Status)
	}
	var body aitp.Error
	if err := json.Unmarshal(s.Body, &body); err != nil || body.Code != aitp.CodeBusy {
		t.Fatalf("BUSY body %q: %v", s.Body, err)
	}

	// INVALID_REQUEST at dispatch: a bad method name and a malformed segment.
	rc.send(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 7, RequestID: 9, Method: []byte("bad name")})
	if s := rc.mustRecv(); s.RequestID != 9 || s.Status != aitp.StatusInvalidRequest {
		t.Fatalf("bad method: got id %d status %v", s.RequestID, s.Status)
	}
	bad := frame(t, nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 7, RequestID: 10, Method: []byte("ok"), Body: []byte("abc")})
	bad[aitp.MessageHeaderSize+19]-- // body_length one short of the payload
	if _, err := rc.st.Write(bad); err != nil {
		t.Fatal(err)
	}
	if s := rc.mustRecv(); s.RequestID != 10 || s.Status != aitp.StatusInvalidRequest {
		t.Fatalf("malformed segment: got id %d status %v", s.RequestID, s.Status)
	}
	rc.send(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin | aitp.FlagNoReply, Association: 7, RequestID: 11, Method: []byte("ok")})
	if s := rc.mustRecv(); s.RequestID != 11 || s.Status != aitp.StatusInvalidRequest {
		t.Fatalf("NO_REPLY: got id %d status %v", s.RequestID, s.Status)
	}
}

func TestDeadlineOption(t *testing.T) {
	srv, _, hs, hc := pair(t, nil)
	var seen atomic.Int64
	srv.HandleFunc("slow", func(ctx context.Context, _ aitp.ResponseWriter, r *aitp.Request) error {
		seen.Store(int64(time.Until(r.Deadline)))
		<-ctx.Done()
		return nil
	})
	rc := dialRaw(t, hc, hs.ID())
	rc.open(1)
	start := time.Now()
	rc.send(deadlineOpt(50), &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 1, RequestID: 1, Method: []byte("slow")})
	s := rc.mustRecv()
	if s.Status != aitp.StatusTimeout {
		t.Fatalf("got %v, want TIMEOUT", s.Status)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("TIMEOUT after %v, before the 50 ms deadline", d)
	}
	if d := time.Duration(seen.Load()); d <= 0 || d > 50*time.Millisecond {
		t.Fatalf("handler saw a deadline %v away, want within 50 ms", d)
	}
}

func TestCancelReachesHandler(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	started := make(chan struct{})
	canceled := make(chan error, 1)
	srv.HandleFunc("wait", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		close(started)
		<-ctx.Done()
		canceled <- ctx.Err()
		return ctx.Err()
	})
	ctx, cancel := context.WithCancel(ctxT(t))
	errc := make(chan error, 1)
	go func() {
		_, err := cl.Call(ctx, hs.ID(), "wait", nil)
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("caller got %v, want context.Canceled", err)
	}
	select {
	case err := <-canceled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler context ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was never canceled")
	}
	// The slot came back: the association still works.
	srv.HandleFunc("ok", echo)
	polltest.For(t, 10*time.Second, "the canceled call to leave the server", func() bool { return srv.Stats().Inflight == 0 })
	if _, err := cl.Call(ctxT(t), hs.ID(), "ok", nil); err != nil {
		t.Fatal(err)
	}
}

func TestPanickingHandler(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	srv.HandleFunc("boom", func(context.Context, aitp.ResponseWriter, *aitp.Request) error { panic("kaboom") })
	srv.HandleFunc("ok", echo)
	for range 3 {
		_, err := cl.Call(ctxT(t), hs.ID(), "boom", nil)
		if st := statusOf(t, err); st != aitp.StatusError {
			t.Fatalf("panic answered %v", st)
		}
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "ok", []byte("still here")); err != nil || string(got) != "still here" {
		t.Fatalf("after panics: %q %v", got, err)
	}
}

// TestHostilePeers: garbage and an oversized frame reset only the
// offending stream; a call in flight on another stream completes.
func TestHostilePeers(t *testing.T) {
	srv, cl, hs, hc := pair(t, nil)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	srv.HandleFunc("hold", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		entered <- struct{}{}
		<-release
		_, err := w.Write(r.Body)
		return err
	})
	errc := make(chan error, 1)
	go func() {
		got, err := cl.Call(ctxT(t), hs.ID(), "hold", []byte("survivor"))
		if err == nil && string(got) != "survivor" {
			err = fmt.Errorf("got %q", got)
		}
		errc <- err
	}()
	<-entered

	garbage := dialRaw(t, hc, hs.ID())
	garbage.st.Write(bytes.Repeat([]byte("GET / HTTP/1.1\r\n"), 100))
	garbage.expectReset()

	over := dialRaw(t, hc, hs.ID())
	over.open(3)
	big := make([]byte, 70_000)
	big[0], big[4], big[5] = aitp.Version, 0xff, 0xff // declares 65535 octets, sends 70000
	big[3] = aitp.NextProtoAITP
	over.st.Write(big)
	over.expectReset()

	lying := dialRaw(t, hc, hs.ID())
	lying.st.Write([]byte{aitp.Version, 0, 64, 1, 0, 4, 0, 0, 0, 0}) // total_length 4 < header
	lying.expectReset()

	close(release)
	if err := <-errc; err != nil {
		t.Fatalf("call on the healthy stream: %v", err)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "hold", []byte("x")); err != nil || string(got) != "x" {
		t.Fatalf("after the hostile peers: %q %v", got, err)
	}
}

// TestTenThousandRequests: a peer firing 10,000 requests at a window of 64
// gets BUSY for the excess, the server holds at most one window of
// handlers, and memory stays bounded.
func TestTenThousandRequests(t *testing.T) {
	const n, window = 10_000, 64
	srv, _, hs, hc := pair(t, []aitp.ServerOption{aitp.WithWindow(window)})
	release := make(chan struct{})
	var running, peak atomic.Int64
	srv.HandleFunc("hold", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		v := running.Add(1)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				break
			}
		}
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	rc := dialRaw(t, hc, hs.ID())
	rc.open(5)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	body := bytes.Repeat([]byte{'b'}, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 0, 2048)
		for id := uint32(1); id <= n; id++ {
			p, _ := aitp.AppendSegment(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 5, RequestID: id, Method: []byte("hold"), Body: body})
			buf, _ = aitp.AppendMessage(buf[:0], &aitp.Message{Version: 1, TTL: 64, NextProto: 1, Payload: p})
			if _, err := rc.st.Write(buf); err != nil {
				return
			}
		}
	}()
	busy := 0
	for busy < n-window {
		s := rc.mustRecv()
		if s.Type != aitp.TypeResponse || s.Status != aitp.StatusBusy {
			t.Fatalf("got %v %v before the window drained", s.Type, s.Status)
		}
		busy++
	}
	wg.Wait()
	st := srv.Stats()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if st.Inflight != window || peak.Load() > window {
		t.Fatalf("in flight %d, peak handlers %d, want %d", st.Inflight, peak.Load(), window)
	}
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// 10,000 bodies of 1000 octets would be 10 MB; one window is 64 KB.
	if growth > 4<<20 {
		t.Fatalf("heap grew by %d octets for %d refused requests", growth, n-window)
	}
	t.Logf("heap growth %d octets, %d BUSY", growth, busy)
	close(release)
	for ok := 0; ok < window; ok++ {
		if s := rc.mustRecv(); s.Status != aitp.StatusOK {
			t.Fatalf("held request answered %v", s.Status)
		}
	}
}

func TestStreamedReply(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	const size = 1 << 20
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i * 7)
	}
	srv.HandleFunc("download", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		if !r.StreamReply {
			return errors.New("expected a streamed reply")
		}
		for off := 0; off < size; off += 10_000 {
			if _, err := w.Write(want[off:min(off+10_000, size)]); err != nil {
				return err
			}
		}
		return nil
	})
	rs, err := cl.Stream(ctxT(t), hs.ID(), "download", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	chunks := 0
	for {
		c, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c...)
		chunks++
	}
	if !bytes.Equal(got, want) || chunks != 105 {
		t.Fatalf("got %d octets in %d chunks, want %d in 105", len(got), chunks, size)
	}
	// A buffered 1 MB reply, and an error after streamed chunks.
	srv.HandleFunc("big", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		_, err := w.Write(want)
		return err
	})
	if got, err := cl.Call(ctxT(t), hs.ID(), "big", nil); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("buffered 1 MB reply: %d octets, %v", len(got), err)
	}
	srv.HandleFunc("halfway", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		w.Write([]byte("part"))
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "source dried up")
	})
	rs, err = cl.Stream(ctxT(t), hs.ID(), "halfway", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := rs.Next(); err != nil || string(c) != "part" {
		t.Fatalf("first chunk %q %v", c, err)
	}
	if _, err := rs.Next(); statusOf(t, err) != aitp.StatusError {
		t.Fatalf("end of a failed stream: %v", err)
	}
}

func TestBodyLimits(t *testing.T) {
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithMaxRequestBody(100_000), aitp.WithMaxResponseBody(1000)},
		aitp.WithClientMaxRequestBody(1<<20))
	srv.HandleFunc("echo", echo)
	_, err := cl.Call(ctxT(t), hs.ID(), "echo", make([]byte, 200_000))
	if st := statusOf(t, err); st != aitp.StatusInvalidRequest {
		t.Fatalf("oversized request: %v", err)
	}
	_, err = cl.Call(ctxT(t), hs.ID(), "echo", make([]byte, 2000))
	if st := statusOf(t, err); st != aitp.StatusError {
		t.Fatalf("oversized reply: %v", err)
	}
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", make([]byte, 2<<20)); !errors.Is(err, aitp.ErrBodyTooLarge) {
		t.Fatalf("over the client's limit: %v", err)
	}
	if _, err := cl.Call(ctxT(t), hs.ID(), "bad method", nil); !errors.Is(err, aitp.ErrBadMethod) {
		t.Fatalf("bad method: %v", err)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", make([]byte, 900)); err != nil || len(got) != 900 {
		t.Fatalf("within limits: %d %v", len(got), err)
	}
}

// TestLateWrite: a ResponseWriter kept past the handler's return refuses
// writes instead of corrupting another call's reply.
func TestLateWrite(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil)
	kept := make(chan aitp.ResponseWriter, 1)
	srv.HandleFunc("keep", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		kept <- w
		_, err := w.Write([]byte("mine"))
		return err
	})
	srv.HandleFunc("echo", echo)
	if got, err := cl.Call(ctxT(t), hs.ID(), "keep", nil); err != nil || string(got) != "mine" {
		t.Fatalf("keep: %q %v", got, err)
	}
	w := <-kept
	if _, err := w.Write([]byte("late")); !errors.Is(err, aitp.ErrClosed) {
		t.Fatalf("late write: %v", err)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("clean")); err != nil || string(got) != "clean" {
		t.Fatalf("next call: %q %v", got, err)
	}
}

// TestTimeoutWhenHandlerIgnoresContext: the TIMEOUT answer goes out at
// the deadline although the handler never looks at its context, and the
// handler's context then reports DeadlineExceeded.
func TestTimeoutWhenHandlerIgnoresContext(t *testing.T) {
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithHandlerTimeout(40 * time.Millisecond)})
	release := make(chan struct{})
	errc := make(chan error, 1)
	srv.HandleFunc("stubborn", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		<-release // ignores ctx
		errc <- ctx.Err()
		return nil
	})
	srv.HandleFunc("ok", echo)
	// Warm up the association, so the stubborn request arrives alone.
	if _, err := cl.Call(ctxT(t), hs.ID(), "ok", []byte("hi")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := cl.Call(ctxT(t), hs.ID(), "stubborn", nil)
	close(release)
	if st := statusOf(t, err); st != aitp.StatusTimeout {
		t.Fatalf("got %v, want TIMEOUT", st)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("TIMEOUT after %v, before the 40 ms deadline", d)
	}
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("handler context error %v, want DeadlineExceeded", err)
	}
}
