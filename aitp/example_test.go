package aitp_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/aitp"
)

func Example() {
	server, _ := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	defer server.Close()
	caller, _ := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	defer caller.Close()

	srv, _ := aitp.NewServer(server)
	defer srv.Close()
	srv.HandleFunc("upper", func(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
		if len(r.Body) == 0 {
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "empty body")
		}
		_, err := w.Write([]byte(strings.ToUpper(string(r.Body))))
		return err
	})

	ctx := context.Background()
	caller.Connect(ctx, peer.AddrInfo{ID: server.ID(), Addrs: server.Addrs()})
	cl := aitp.NewClient(caller)
	defer cl.Close()

	out, err := cl.Call(ctx, server.ID(), "upper", []byte("hello"))
	fmt.Println(string(out), err)

	_, err = cl.Call(ctx, server.ID(), "upper", nil)
	st, _ := aitp.StatusOf(err)
	fmt.Println(st)
	// Output:
	// HELLO <nil>
	// INVALID_REQUEST
}
