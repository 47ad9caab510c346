package aitp_test

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	mocknet "github.com/libp2p/go-libp2p/p2p/net/mock"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/aitp"
)

// mockPair returns two linked, connected mocknet hosts with Ed25519 keys.
// Mocknet streams ignore deadlines, which the client must not rely on.
func mockPair(t *testing.T) (host.Host, host.Host) {
	t.Helper()
	mn := mocknet.New()
	t.Cleanup(func() { mn.Close() })
	var hs []host.Host
	for i := range 2 {
		sk, _, err := crypto.GenerateEd25519Key(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		h, err := mn.AddPeer(sk, ma.StringCast("/ip4/127.0.0.1/tcp/"+itoa(4000+i)))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if err := mn.LinkAll(); err != nil {
		t.Fatal(err)
	}
	if err := mn.ConnectAllButSelf(); err != nil {
		t.Fatal(err)
	}
	return hs[0], hs[1]
}

func itoa(i int) string {
	b := []byte{}
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestMocknetCancel: on streams without deadlines a call still returns
// when its context ends, and the association keeps working.
func TestMocknetCancel(t *testing.T) {
	hs, hc := mockPair(t)
	srv, err := aitp.NewServer(hs)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.HandleFunc("echo", echo)
	entered := make(chan struct{}, 1)
	srv.HandleFunc("hang", func(ctx context.Context, _ aitp.ResponseWriter, _ *aitp.Request) error {
		entered <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	cl := aitp.NewClient(hc)
	defer cl.Close()
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("hi")); err != nil || string(got) != "hi" {
		t.Fatalf("echo: %q %v", got, err)
	}
	// No deadline travels with the call: only the caller's cancellation
	// can end it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-entered
		cancel()
	}()
	start := time.Now()
	if _, err := cl.Call(ctx, hs.ID(), "hang", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("hanging call: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the call took %v to notice its cancellation", d)
	}
	if got, err := cl.Call(ctxT(t), hs.ID(), "echo", []byte("again")); err != nil || string(got) != "again" {
		t.Fatalf("after the deadline: %q %v", got, err)
	}
}

// TestOpenTimeout: a peer that never answers OPEN does not hold the
// caller past its context.
func TestOpenTimeout(t *testing.T) {
	hs, hc := mockPair(t)
	hs.SetStreamHandler(aitp.ProtocolID, func(s network.Stream) { io.Copy(io.Discard, s) })
	cl := aitp.NewClient(hc)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := cl.Call(ctx, hs.ID(), "echo", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("silent peer: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("open took %v", d)
	}
}
