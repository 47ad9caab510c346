package aitp

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	ma "github.com/multiformats/go-multiaddr"
)

// prefixWriter takes everything until it fails; then it takes a prefix
// of take octets of the failing write and refuses the rest.
type prefixWriter struct {
	fail bool
	take int
	got  int
}

var errWriterBroke = errors.New("writer broke")

func (w *prefixWriter) Write(p []byte) (int, error) {
	if !w.fail {
		w.got += len(p)
		return len(p), nil
	}
	n := min(w.take, len(p))
	w.take -= n
	w.got += n
	return n, errWriterBroke
}

// TestFrameWriterReached: reached tells the frames that went into the
// stream, wholly or in part, from those that never did.
func TestFrameWriterReached(t *testing.T) {
	pw := &prefixWriter{}
	fw := newFrameWriter(pw, false)
	seg := func(id uint32) *Segment {
		return &Segment{Type: TypeRequest, Flags: FlagFin, Association: 1, RequestID: id, Body: []byte("body")}
	}
	a, err := fw.writeAt(nil, seg(1), "m")
	if err != nil || a != 0 {
		t.Fatalf("first frame at %d: %v", a, err)
	}
	size := int64(pw.got)
	pw.fail, pw.take = true, 3 // the second frame's first 3 octets go out
	b, err := fw.writeAt(nil, seg(2), "m")
	if !errors.Is(err, errWriterBroke) || b != size {
		t.Fatalf("second frame at %d (want %d): %v", b, size, err)
	}
	c, err := fw.writeAt(nil, seg(3), "m")
	if !errors.Is(err, errWriterBroke) {
		t.Fatalf("third frame after the failure: %v", err)
	}
	for _, tc := range []struct {
		name string
		at   int64
		want bool
	}{
		{"written frame", a, true},
		{"frame cut by the failing write", b, true},
		{"frame behind the cut", b + 3, false},
		{"frame queued after the failure", c, false},
	} {
		if got := fw.reached(tc.at); got != tc.want {
			t.Errorf("%s (offset %d): reached %v, want %v", tc.name, tc.at, got, tc.want)
		}
	}
	if pw.got != int(size)+3 {
		t.Fatalf("stream took %d octets, want %d", pw.got, size+3)
	}
}

// mockHosts returns a server and a client host on mocknet, connected.
func mockHosts(t *testing.T) (hs, hc host.Host) {
	t.Helper()
	mn := mocknet.New()
	t.Cleanup(func() { mn.Close() })
	var hosts []host.Host
	for _, addr := range []string{"/ip4/127.0.0.1/tcp/4001", "/ip4/127.0.0.1/tcp/4002"} {
		sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		h, err := mn.AddPeer(sk, ma.StringCast(addr))
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	if err := mn.LinkAll(); err != nil {
		t.Fatal(err)
	}
	if err := mn.ConnectAllButSelf(); err != nil {
		t.Fatal(err)
	}
	return hosts[0], hosts[1]
}

// TestBrokenHandshakeResent: a stream that breaks before ACCEPT carried no
// call, so a non-idempotent call goes out on another stream; a peer that
// breaks every stream costs a bounded number of attempts.
func TestBrokenHandshakeResent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		broken   int32 // streams reset before ACCEPT
		wantErr  bool
		wantOpen int32
	}{
		{name: "first stream breaks", broken: 1, wantOpen: 2},
		{name: "every stream breaks", broken: 100, wantErr: true, wantOpen: 1 + maxResends},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, hc := mockHosts(t)
			srv, err := NewServer(hs)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			var served atomic.Int32
			srv.HandleFunc("echo", func(ctx context.Context, w ResponseWriter, r *Request) error {
				served.Add(1)
				_, err := w.Write(r.Body)
				return err
			})
			var opened atomic.Int32
			hs.SetStreamHandler(ProtocolID, func(s network.Stream) {
				if opened.Add(1) <= tc.broken {
					s.Reset()
					return
				}
				srv.handleStream(s)
			})
			cl := NewClient(hc)
			t.Cleanup(func() { cl.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			got, err := cl.Call(ctx, hs.ID(), "echo", []byte("hi"))
			switch {
			case tc.wantErr && !errors.Is(err, ErrConnLost):
				t.Fatalf("call: %q %v, want ErrConnLost", got, err)
			case !tc.wantErr && (err != nil || string(got) != "hi"):
				t.Fatalf("call: %q %v", got, err)
			}
			if n := opened.Load(); n != tc.wantOpen {
				t.Fatalf("%d streams opened, want %d (call: %v)", n, tc.wantOpen, err)
			}
			want := int32(1)
			if tc.wantErr {
				want = 0
			}
			if n := served.Load(); n != want {
				t.Fatalf("handler ran %d times, want %d", n, want)
			}
		})
	}
}

// refusingServer serves one association by hand: it accepts, answers the
// first REQUEST with BUSY (after a CLOSE when closing is set) and waits
// for the stream to end.
func refusingServer(t *testing.T, s network.Stream, closing bool) {
	defer s.Close()
	br := bufio.NewReader(s)
	buf := make([]byte, MaxMessageSize)
	next := func() (Segment, bool) {
		raw, err := readMessage(br, buf)
		if err != nil {
			return Segment{}, false
		}
		m, err := DecodeMessage(raw)
		if err != nil {
			t.Errorf("client message: %v", err)
			return Segment{}, false
		}
		seg, err := DecodeSegment(m.Payload)
		if err != nil {
			t.Errorf("client segment: %v", err)
			return Segment{}, false
		}
		return seg, true
	}
	send := func(seg *Segment) {
		p, err := AppendSegment(nil, seg)
		if err == nil {
			var b []byte
			if b, err = AppendMessage(nil, &Message{Version: Version, TTL: DefaultTTL, NextProto: NextProtoAITP, Payload: p}); err == nil {
				_, err = s.Write(b)
			}
		}
		if err != nil {
			t.Errorf("send %s: %v", seg.Type, err)
		}
	}
	open, ok := next()
	if !ok || open.Type != TypeOpen {
		t.Errorf("first segment %s, want OPEN", open.Type)
		return
	}
	send(&Segment{Type: TypeAccept, Association: open.Association, Window: 8})
	req, ok := next()
	if !ok || req.Type != TypeRequest {
		t.Errorf("second segment %s, want REQUEST", req.Type)
		return
	}
	if closing {
		send(&Segment{Type: TypeClose, Association: open.Association})
	}
	busy := Errorf(StatusBusy, CodeBusy, "", "association closing")
	send(&Segment{Type: TypeResponse, Flags: FlagFin, Status: StatusBusy, Association: open.Association, RequestID: req.RequestID, Body: busy.body()})
	for {
		if _, ok := next(); !ok {
			return
		}
	}
}

// holdingHost opens streams from Host. On the first one, the write after
// the OPEN (the REQUEST's) returns only once the client closes or resets
// the stream, or release ends: the client reads the reply, and may end
// the association, while the REQUEST's write is in progress.
type holdingHost struct {
	host.Host
	release <-chan struct{}
	opened  atomic.Int32
}

func (h *holdingHost) NewStream(ctx context.Context, p peer.ID, pids ...protocol.ID) (network.Stream, error) {
	s, err := h.Host.NewStream(ctx, p, pids...)
	if err != nil || h.opened.Add(1) > 1 {
		return s, err
	}
	return &holdingStream{Stream: s, release: h.release, ended: make(chan struct{})}, nil
}

type holdingStream struct {
	network.Stream
	release <-chan struct{}
	writes  atomic.Int32
	endOnce sync.Once
	ended   chan struct{}
}

func (s *holdingStream) Write(p []byte) (int, error) {
	n, err := s.Stream.Write(p)
	if s.writes.Add(1) == 2 {
		select {
		case <-s.ended:
		case <-s.release:
		}
	}
	return n, err
}

func (s *holdingStream) end() { s.endOnce.Do(func() { close(s.ended) }) }

func (s *holdingStream) Close() error {
	s.end()
	return s.Stream.Close()
}

func (s *holdingStream) Reset() error {
	s.end()
	return s.Stream.Reset()
}

// TestBusyWhileClosingResent: a call the server refused with BUSY because
// it was closing the association (its CLOSE came first) ran no handler and
// goes out on a new association; a BUSY without CLOSE is the answer.
func TestBusyWhileClosingResent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		closing   bool
		breakRest bool // later streams are reset before ACCEPT
		holdWrite bool // the first stream's REQUEST write returns once the client ends the stream
		wantBusy  bool
		wantLost  bool
		wantOpen  int32
	}{
		{name: "CLOSE then BUSY", closing: true, wantOpen: 2},
		{name: "BUSY alone", closing: false, wantBusy: true, wantOpen: 1},
		// One budget bounds every resend of a call.
		{name: "CLOSE then BUSY, then broken streams", closing: true, breakRest: true, wantLost: true, wantOpen: 1 + maxResends},
		// The refusal ends the association before the write that
		// carried the REQUEST has returned, which then reports the
		// association's end: the refusal still decides.
		{name: "CLOSE then BUSY within the write", closing: true, holdWrite: true, wantOpen: 2},
		{name: "CLOSE then BUSY within the write, then broken streams", closing: true, breakRest: true, holdWrite: true, wantLost: true, wantOpen: 1 + maxResends},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, hc := mockHosts(t)
			srv, err := NewServer(hs)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			srv.HandleFunc("echo", func(ctx context.Context, w ResponseWriter, r *Request) error {
				_, err := w.Write(r.Body)
				return err
			})
			var opened atomic.Int32
			hs.SetStreamHandler(ProtocolID, func(s network.Stream) {
				switch n := opened.Add(1); {
				case n == 1:
					refusingServer(t, s, tc.closing)
				case tc.breakRest:
					s.Reset()
				default:
					srv.handleStream(s)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ch := hc
			if tc.holdWrite {
				ch = &holdingHost{Host: hc, release: ctx.Done()}
			}
			cl := NewClient(ch)
			t.Cleanup(func() { cl.Close() })
			got, err := cl.Call(ctx, hs.ID(), "echo", []byte("hi"))
			st, _ := StatusOf(err)
			switch {
			case tc.wantBusy && st != StatusBusy:
				t.Fatalf("call: %q %v, want BUSY", got, err)
			case tc.wantLost && !errors.Is(err, ErrConnLost):
				t.Fatalf("call: %q %v, want ErrConnLost", got, err)
			case !tc.wantBusy && !tc.wantLost && (err != nil || string(got) != "hi"):
				t.Fatalf("call: %q %v", got, err)
			}
			if n := opened.Load(); n != tc.wantOpen {
				t.Fatalf("%d streams opened, want %d (call: %v)", n, tc.wantOpen, err)
			}
		})
	}
}
