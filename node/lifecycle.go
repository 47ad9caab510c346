package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/p2p/host/eventbus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/adpnode/adpnode/internal/atomicfile"
	"github.com/adpnode/adpnode/internal/p2phost"
	"github.com/adpnode/adpnode/node/a2aserver"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/mcpserver"
)

// Start stores the node's own card, starts the background loops, serves
// the HTTP API (writing its URL to DataDir/api), connects to the bootstrap
// peers and publishes the card. ctx bounds the bootstrap only.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	switch {
	case n.closed:
		n.mu.Unlock()
		return ErrClosed
	case n.started:
		n.mu.Unlock()
		return ErrStarted
	}
	n.started = true
	n.mu.Unlock()
	if err := n.startAgent(ctx); err != nil {
		return fmt.Errorf("node: agent: %w", err)
	}
	// Subscribed before the card is shaped, so that no change of the
	// host's addresses falls between.
	addrs, err := n.host.EventBus().Subscribe(new(event.EvtLocalAddressesUpdated), eventbus.BufSize(16))
	if err != nil {
		return fmt.Errorf("node: subscribe to address changes: %w", err)
	}
	made, err := n.own.Reshape(ctx)
	if err != nil {
		addrs.Close()
		return fmt.Errorf("node: update own card: %w", err)
	}
	n.goLoop(func(ctx context.Context) { n.own.FollowAddrs(ctx, addrs) })
	if !made { // a new version is kept by the keeper; card.json's is kept here
		if err := n.keepOwn(ctx, n.Card()); err != nil {
			return err
		}
	}
	if err := n.feed.Start(ctx); err != nil {
		return fmt.Errorf("node: index feed: %w", err)
	}
	// One A2A server for every listener that serves the A2A card (the
	// local API's /a2a, and any other that mounts it): one task store.
	n.mu.Lock()
	n.a2aSrv = a2aserver.New(n, a2aserver.WithLogger(n.log), a2aserver.WithClock(n.cfg.Clock))
	n.mu.Unlock()
	if n.cfg.APIAddr != "" {
		if err := n.serveAPI(); err != nil {
			return err
		}
	}
	if n.cfg.PublicHTTP != "" {
		if err := n.servePublic(); err != nil {
			return err
		}
	}
	n.goLoop(n.greeter.Run)
	n.join.Dial(ctx)
	if err := n.peering.Start(); err != nil {
		return fmt.Errorf("node: peering: %w", err)
	}
	if err := n.gossip.SetOwnCard(n.Card()); err != nil {
		n.log.Warn("gossip own card", "err", err)
	}
	n.log.Info("node started", "agent", n.agentID, "peer", n.self, "directory", n.cfg.Directory, "peers", len(n.Peers()))
	n.goLoop(n.join.Run)
	return nil
}

// serveAPI listens on cfg.APIAddr and writes the base URL to DataDir/api.
func (n *Node) serveAPI() error {
	ln, err := net.Listen("tcp", n.cfg.APIAddr)
	if err != nil {
		return fmt.Errorf("node: api listen: %w", err)
	}
	url := "http://" + ln.Addr().String()
	mcpSrv := mcpserver.NewLazy(httpapi.NewLocal(n), mcpserver.WithLogger(n.log))
	srv := httpapi.NewServer(n, httpapi.WithLogger(n.log), httpapi.WithBaseContext(n.ctx),
		httpapi.WithMetrics(promhttp.HandlerFor(n.metrics.Reg, promhttp.HandlerOpts{})),
		httpapi.WithMCP(mcpSrv), httpapi.WithDIDDocument(n.DIDDocument()),
		httpapi.WithA2A(n.a2aSrv.Handler()), httpapi.WithCatalog(n.catalogHandler("")), httpapi.WithWebRegistration(n.webRegHandler()))
	if err := atomicfile.Write(httpapi.APIFile(n.cfg.DataDir), []byte(url+"\n"), 0o600); err != nil {
		ln.Close()
		return errors.Join(fmt.Errorf("node: write api file: %w", err), mcpSrv.Close())
	}
	n.mu.Lock()
	n.httpSrv, n.mcpSrv, n.apiURL = srv, mcpSrv, url
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("api stopped", "err", err)
		}
	}()
	n.log.Info("api listening", "url", url)
	return nil
}

// goLoop runs f in a goroutine that Close cancels and waits for. Once
// Close has begun it runs nothing.
func (n *Node) goLoop(f func(ctx context.Context)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		f(n.ctx)
	}()
}

// Close shuts the node down in order: the MCP and A2A servers (their
// sessions, calls and streams), public HTTP server, HTTP API, background
// loops, the index feed, card sync, peering, gossip, DHT, invocation
// layer, the host's connections, the host, store. It waits for every
// goroutine the node started, and at most 10 s for the libp2p host's own
// Close (past that it returns an error; see p2phost.Close). It is
// idempotent.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		n.mu.Lock()
		n.closed = true
		srv, mcpSrv, a2aSrv, publicSrv := n.httpSrv, n.mcpSrv, n.a2aSrv, n.publicSrv
		n.mu.Unlock()
		var errs []error
		if mcpSrv != nil {
			// First, so that its open streams do not hold up the API's shutdown.
			errs = append(errs, mcpSrv.Close())
		}
		if a2aSrv != nil {
			// Likewise, for both servers that mount it: ends its calls, so
			// that its blocking sends answer and its event streams end.
			errs = append(errs, a2aSrv.Close())
		}
		errs = append(errs, closePublic(publicSrv))
		if srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := srv.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("node: api shutdown: %w", err), srv.Close())
			}
			cancel()
			if err := os.Remove(httpapi.APIFile(n.cfg.DataDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		n.cancel()
		n.wg.Wait()
		errs = append(errs, n.feed.Close(), n.sync.Close(), n.peering.Close(), n.greeter.Close(), n.gossip.Close(), n.dht.Close())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err := n.server.Shutdown(ctx); err != nil {
			errs = append(errs, n.server.Close())
		}
		cancel()
		errs = append(errs, n.client.Close(), n.a2a.Close())
		if n.webReg != nil {
			errs = append(errs, n.webReg.Close())
		}
		if n.agent != nil {
			errs = append(errs, n.agent.Close())
		}
		// The host closes its connections first and is waited for at
		// most p2phost.CloseWait (see p2phost.Close).
		errs = append(errs, n.reach.Close(), p2phost.Close(n.host), n.store.Close())
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}
