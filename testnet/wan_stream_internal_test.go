package testnet_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
)

const wanTestProto = "/wan-stream-test/1"

// wanStreamPair returns the two ends of a stream between two mocknet hosts,
// each end a wanStream with latency lat, as BenchmarkWAN's hosts make them.
func wanStreamPair(t *testing.T, lat time.Duration) (out, in network.Stream) {
	t.Helper()
	mn, err := mocknet.FullMeshConnected(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mn.Close() })
	hs := mn.Hosts()
	latency := func(peer.ID) time.Duration { return lat }
	noDial := func(peer.ID) time.Duration { return 0 }
	a := &wanHost{Host: hs[0], dial: noDial, lat: latency}
	b := &wanHost{Host: hs[1], dial: noDial, lat: latency}
	accepted := make(chan network.Stream, 1)
	b.SetStreamHandler(wanTestProto, func(s network.Stream) { accepted <- s })
	out, err = a.NewStream(context.Background(), hs[1].ID(), wanTestProto)
	if err != nil {
		t.Fatal(err)
	}
	// The handler runs once the protocol is negotiated, which mocknet does
	// on the first write: made beneath the wanStream, so with no latency.
	ws, ok := out.(*wanStream)
	if !ok {
		t.Fatalf("NewStream returned a %T, want a *wanStream", out)
	}
	if _, err := ws.Stream.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	select {
	case in = <-accepted:
	case <-time.After(time.Minute):
		t.Fatal("stream not accepted")
	}
	if _, ok := in.(*wanStream); !ok {
		t.Fatalf("handler got a %T, want a *wanStream", in)
	}
	one := make([]byte, 1)
	if _, err := io.ReadFull(in, one); err != nil {
		t.Fatal(err)
	}
	return out, in
}

// Writes return while earlier writes are on the link: nothing has arrived
// after three writes on a link of an hour.
func TestWANStreamWritesDoNotWaitForArrival(t *testing.T) {
	out, _ := wanStreamPair(t, time.Hour)
	wrote := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 3 && err == nil; i++ {
			_, err = out.Write(make([]byte, 1000))
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a write waits for the one before it to arrive")
	}
	// A write leaves the count of queued bytes once it has arrived.
	ws := out.(*wanStream)
	ws.mu.Lock()
	queued := ws.queued
	ws.mu.Unlock()
	if queued != 3000 {
		t.Fatalf("%d bytes on the link, want the 3000 written", queued)
	}
	if err := out.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte{1}); !errors.Is(err, network.ErrReset) {
		t.Fatalf("write after reset: %v, want ErrReset", err)
	}
}

// Writes arrive in order, and CloseWrite reaches the reader after them.
func TestWANStreamDeliversInOrderThenEOF(t *testing.T) {
	out, in := wanStreamPair(t, time.Millisecond)
	var want bytes.Buffer
	for i := range 200 {
		p := bytes.Repeat([]byte{byte(i)}, 1+i*37%1500)
		want.Write(p)
		if _, err := out.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte{1}); err == nil {
		t.Fatal("write after CloseWrite succeeded")
	}
	got, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read %d bytes, not the %d written in order", len(got), want.Len())
	}
}
