package aitp_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
)

// TestControlMessages: AIP-level problems are reported with control
// messages and the stream stays usable.
func TestControlMessages(t *testing.T) {
	srv, _, hs, hc := pair(t, []aitp.ServerOption{aitp.WithLocalAddress("agent://me")})
	srv.HandleFunc("echo", echo)
	rc := dialRaw(t, hc, hs.ID())
	rc.open(1)
	req := func() []byte {
		p, _ := aitp.AppendSegment(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin, Association: 1, RequestID: 1, Method: []byte("echo")})
		return p
	}
	mustUnderstand, _ := aitp.AppendOption(nil, aitp.OptionMustUnderstand|0x11, []byte{1})
	ignorable, _ := aitp.AppendOption(nil, 0x11, []byte{1})
	for _, tt := range []struct {
		name string
		msg  aitp.Message
		code uint8
	}{
		{"ttl 0", aitp.Message{Version: 1, TTL: 0, NextProto: aitp.NextProtoAITP, Payload: req()}, aitp.ControlTTLExceeded},
		{"unknown next_proto", aitp.Message{Version: 1, TTL: 9, NextProto: 7, Payload: req()}, aitp.ControlProtocolUnsupported},
		{"must-understand option", aitp.Message{Version: 1, TTL: 9, NextProto: aitp.NextProtoAITP, Options: mustUnderstand, Payload: req()}, aitp.ControlParameterProblem},
		{"other destination", aitp.Message{Version: 1, TTL: 9, NextProto: aitp.NextProtoAITP, Dst: []byte("agent://you"), Payload: req()}, aitp.ControlDestinationUnknown},
	} {
		b, err := aitp.AppendMessage(nil, &tt.msg)
		if err != nil {
			t.Fatal(err)
		}
		rc.st.Write(b)
		m, _, err := rc.recv()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if m.NextProto != aitp.NextProtoControl || len(m.Payload) < aitp.ControlHeaderSize || m.Payload[0] != tt.code {
			t.Fatalf("%s: got next_proto %d payload %x, want control %d", tt.name, m.NextProto, m.Payload, tt.code)
		}
	}
	// Addressed to this server, with an option it may skip: served.
	b, _ := aitp.AppendMessage(nil, &aitp.Message{Version: 1, TTL: 9, NextProto: aitp.NextProtoAITP, Dst: []byte("agent://me"), Options: ignorable, Payload: req()})
	rc.st.Write(b)
	if s := rc.mustRecv(); s.Type != aitp.TypeResponse || s.Status != aitp.StatusOK {
		t.Fatalf("addressed request: %v %v", s.Type, s.Status)
	}
}

// TestPartialRequests: request bodies still arriving are bounded; CANCEL
// drops one; out-of-order chunks are refused.
func TestPartialRequests(t *testing.T) {
	srv, _, hs, hc := pair(t, []aitp.ServerOption{aitp.WithMaxPartialBytes(150_000)})
	srv.HandleFunc("echo", echo)
	rc := dialRaw(t, hc, hs.ID())
	rc.open(1)
	chunk := bytes.Repeat([]byte{'c'}, 60_000)
	start := func(id uint32) {
		rc.send(nil, &aitp.Segment{Type: aitp.TypeRequest, Association: 1, RequestID: id, Method: []byte("echo"), Body: chunk})
	}
	start(1)
	start(2)
	// A third chunk would hold 180,000 octets: BUSY for that request.
	rc.send(nil, &aitp.Segment{Type: aitp.TypeStream, Association: 1, RequestID: 2, Sequence: 1, Body: chunk})
	if s := rc.mustRecv(); s.RequestID != 2 || s.Status != aitp.StatusBusy {
		t.Fatalf("over the partial bound: id %d %v", s.RequestID, s.Status)
	}
	// CANCEL of a request still arriving is answered and frees its octets.
	rc.send(nil, &aitp.Segment{Type: aitp.TypeCancel, Association: 1, RequestID: 1})
	if s := rc.mustRecv(); s.RequestID != 1 || s.Status != aitp.StatusError {
		t.Fatalf("canceled partial request: id %d %v", s.RequestID, s.Status)
	}
	// A chunk out of sequence.
	start(3)
	rc.send(nil, &aitp.Segment{Type: aitp.TypeStream, Association: 1, RequestID: 3, Sequence: 5, Body: chunk})
	if s := rc.mustRecv(); s.RequestID != 3 || s.Status != aitp.StatusInvalidRequest {
		t.Fatalf("out-of-order chunk: id %d %v", s.RequestID, s.Status)
	}
	// A complete two-message request still works.
	start(4)
	rc.send(nil, &aitp.Segment{Type: aitp.TypeStream, Flags: aitp.FlagFin, Association: 1, RequestID: 4, Sequence: 1, Body: chunk})
	var got []byte
	for {
		s := rc.mustRecv()
		got = append(got, s.Body...)
		if s.Type == aitp.TypeResponse {
			if s.RequestID != 4 || s.Status != aitp.StatusOK {
				t.Fatalf("two-message request: id %d %v", s.RequestID, s.Status)
			}
			break
		}
	}
	if len(got) != 2*len(chunk) {
		t.Fatalf("echoed %d octets, want %d", len(got), 2*len(chunk))
	}
	// Reusing an outstanding request id is a protocol violation.
	start(5)
	start(5)
	rc.expectReset()
}

func TestStreamsPerPeer(t *testing.T) {
	srv, cl, hs, hc := pair(t, []aitp.ServerOption{aitp.WithMaxStreamsPerPeer(2)})
	srv.HandleFunc("echo", echo)
	a, b := dialRaw(t, hc, hs.ID()), dialRaw(t, hc, hs.ID())
	a.open(1)
	b.open(2)
	c := dialRaw(t, hc, hs.ID())
	c.send(nil, &aitp.Segment{Type: aitp.TypeOpen, Association: 3})
	c.expectReset()
	a.st.Reset()
	polltest.For(t, 10*time.Second, "the server to drop a stream", func() bool { return srv.Stats().Streams == 1 })
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
		t.Fatalf("after a stream freed up: %v", err)
	}
}

// TestGarbageServer: a server that answers with garbage fails the calls
// on that association with ErrConnLost and nothing hangs.
func TestGarbageServer(t *testing.T) {
	hs, hc := newHost(t), newHost(t)
	hs.SetStreamHandler(aitp.ProtocolID, func(s network.Stream) {
		s.Write(bytes.Repeat([]byte{0xff}, 64))
		s.Close()
	})
	connect(t, hc, hs)
	cl := aitp.NewClient(hc)
	defer cl.Close()
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); !errors.Is(err, aitp.ErrConnLost) {
		t.Fatalf("garbage server: %v", err)
	}
}

// TestStreamOverflow: a reply stream whose reader does not keep up fails
// with ErrStreamOverflow instead of buffering without bound.
func TestStreamOverflow(t *testing.T) {
	srv, cl, hs, _ := pair(t, nil, aitp.WithMaxStreamBuffer(100_000))
	flooded := make(chan struct{})
	srv.HandleFunc("flood", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		defer close(flooded)
		for range 50 {
			if _, err := w.Write(make([]byte, 10_000)); err != nil {
				return nil
			}
		}
		return nil
	})
	srv.HandleFunc("echo", echo)
	rs, err := cl.Stream(ctxT(t), hs.ID(), "flood", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Read nothing until the flood is over, then drain.
	<-flooded
	// The PONG comes after every flood frame on the stream: once it is
	// back, the client has taken them all in.
	if _, err := cl.Ping(ctxT(t), hs.ID()); err != nil {
		t.Fatal(err)
	}
	var last error
	total := 0
	for {
		var c []byte
		if c, last = rs.Next(); last != nil {
			break
		}
		total += len(c)
	}
	t.Logf("read %d octets before %v", total, last)
	if !errors.Is(last, aitp.ErrStreamOverflow) {
		t.Fatalf("slow reader: %v", last)
	}
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
		t.Fatalf("association after an overflow: %v", err)
	}
}

// TestPeerStopsReading: a peer that never reads its replies is cut off
// after the write timeout; the handler's writes fail instead of blocking
// for ever.
func TestPeerStopsReading(t *testing.T) {
	srv, _, hs, hc := pair(t, []aitp.ServerOption{
		aitp.WithWriteTimeout(100 * time.Millisecond), aitp.WithServerIdleTimeout(50 * time.Millisecond)})
	writeErr := make(chan error, 1)
	srv.HandleFunc("flood", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		chunk := make([]byte, 64<<10)
		for range 1000 { // 64 MB, far past any stream window
			if _, err := w.Write(chunk); err != nil {
				writeErr <- err
				return err
			}
		}
		writeErr <- nil
		return nil
	})
	rc := dialRaw(t, hc, hs.ID())
	rc.open(1)
	rc.send(nil, &aitp.Segment{Type: aitp.TypeRequest, Flags: aitp.FlagFin | aitp.FlagStreamReply, Association: 1, RequestID: 1, Method: []byte("flood")})
	select {
	case err := <-writeErr:
		if err == nil {
			t.Fatal("64 MB went out to a peer that reads nothing")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the handler is still blocked writing")
	}
	polltest.For(t, 10*time.Second, "the stream to be dropped", func() bool { return srv.Stats().Streams == 0 })
}

func TestMetrics(t *testing.T) {
	sreg, creg := prometheus.NewRegistry(), prometheus.NewRegistry()
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithServerRegisterer(sreg)}, aitp.WithClientRegisterer(creg))
	srv.HandleFunc("echo", echo)
	for range 3 {
		if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
			t.Fatal(err)
		}
	}
	cl.Call(ctxT(t), hs.ID(), "missing", nil)
	count := func(reg *prometheus.Registry, name, label, value string) float64 {
		return counterSum(t, reg, name, map[string]string{label: value})
	}
	if n := count(sreg, "aitp_server_requests_total", "status", "OK"); n != 3 {
		t.Fatalf("server OK count %v", n)
	}
	if n := count(sreg, "aitp_server_requests_total", "status", "NOT_FOUND"); n != 1 {
		t.Fatalf("server NOT_FOUND count %v", n)
	}
	if n := count(creg, "aitp_client_calls_total", "outcome", "OK"); n != 3 {
		t.Fatalf("client OK count %v", n)
	}
}

// counterSum adds the counters of the metric name whose labels include
// want; -1 when no series matches.
func counterSum(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum, found := 0.0, false
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for k, v := range want {
				has := false
				for _, l := range m.GetLabel() {
					has = has || l.GetName() == k && l.GetValue() == v
				}
				if !has {
					continue series
				}
			}
			sum += m.GetCounter().GetValue()
			found = true
		}
	}
	if !found {
		return -1
	}
	return sum
}

// seriesCount counts the series of every metric on reg.
func seriesCount(t *testing.T, reg *prometheus.Registry) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		n += len(mf.GetMetric())
	}
	return n
}

// TestMetricsMethodLabelClosed: a caller naming made-up methods moves the
// "other" counter and adds no series; a registered method keeps its name.
func TestMetricsMethodLabelClosed(t *testing.T) {
	sreg := prometheus.NewRegistry()
	srv, cl, hs, _ := pair(t, []aitp.ServerOption{aitp.WithServerRegisterer(sreg)})
	srv.HandleFunc("echo", echo)
	if _, err := cl.Call(ctxT(t), hs.ID(), "echo", nil); err != nil {
		t.Fatal(err)
	}
	before := seriesCount(t, sreg)

	const calls, workers = 10000, 16
	ctx := ctxT(t)
	var next atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var buf [12]byte
			for next.Add(1) <= calls {
				rand.Read(buf[:])
				method := "m-" + hex.EncodeToString(buf[:])
				_, err := cl.Call(ctx, hs.ID(), method, nil)
				if st, ok := aitp.StatusOf(err); !ok || st != aitp.StatusNotFound {
					errs <- fmt.Errorf("call %s: %v, want NOT_FOUND", method, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

	if after := seriesCount(t, sreg); after != before {
		t.Fatalf("%d series after %d made-up methods, %d before", after, calls, before)
	}
	if n := counterSum(t, sreg, "aitp_server_requests_total", map[string]string{"method": aitp.OtherLabel, "status": "NOT_FOUND"}); n != calls {
		t.Fatalf("other/NOT_FOUND = %v, want %d", n, calls)
	}
	if n := counterSum(t, sreg, "aitp_server_requests_total", map[string]string{"method": "echo", "status": "OK"}); n != 1 {
		t.Fatalf("echo/OK = %v, want 1", n)
	}
	// A method registered later gets its own series.
	srv.HandleFunc("late", echo)
	if _, err := cl.Call(ctxT(t), hs.ID(), "late", nil); err != nil {
		t.Fatal(err)
	}
	if n := counterSum(t, sreg, "aitp_server_requests_total", map[string]string{"method": "late", "status": "OK"}); n != 1 {
		t.Fatalf("late/OK = %v, want 1", n)
	}
}
