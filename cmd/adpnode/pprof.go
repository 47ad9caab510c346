package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/adpnode/adpnode/node/httpapi"
)

// pprofServer serves the Go runtime's profiles (heap, goroutines, CPU...)
// at /debug/pprof/ on a loopback address of its own, apart from the API:
// for measuring where a node's memory and CPU go (see docs/operations.md).
// It is started only by `adpnode run --pprof ADDR`.
type pprofServer struct {
	srv  *http.Server
	addr string
	done chan struct{}
}

// startPprof listens on addr, which must be a loopback address, and serves
// the profiles until close.
func startPprof(addr string, log *slog.Logger) (*pprofServer, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	if !httpapi.IsLoopbackName(host) {
		return nil, fmt.Errorf("--pprof: %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	p := &pprofServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof server", "err", err)
		}
	}()
	log.Info("pprof listening", "addr", "http://"+p.addr+"/debug/pprof/")
	return p, nil
}

// close stops the server and waits for it.
func (p *pprofServer) close() error {
	err := p.srv.Close()
	<-p.done
	return err
}
