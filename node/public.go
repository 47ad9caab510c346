package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/adpnode/adpnode/node/config"
	"github.com/adpnode/adpnode/node/publichttp"
	"github.com/adpnode/adpnode/store"
)

// servePublic serves the public read-only server (package
// node/publichttp) on cfg.PublicHTTP.
func (n *Node) servePublic() error {
	opts := []publichttp.Option{publichttp.WithLogger(n.log), publichttp.WithURL(n.cfg.PublicURL),
		publichttp.WithRegisterer(n.metrics.Reg)}
	switch n.cfg.PublicA2A {
	case PublicA2AOpen:
		opts = append(opts, publichttp.WithA2A(n.a2aSrv.PublicHandler()))
	case PublicA2ADIDWba:
		opts = append(opts, publichttp.WithA2A(n.DIDWbaAuthenticator().Middleware(n.a2aSrv.PublicHandler())))
	}
	if path, doc := n.DIDDocument(); doc != nil {
		opts = append(opts, publichttp.WithDIDDocument(path, doc))
	}
	if len(n.cfg.PublicTrustedProxies) > 0 {
		proxies, err := config.ParsePrefixes(n.cfg.PublicTrustedProxies) // checked by Validate
		if err != nil {
			return fmt.Errorf("node: public http: %w", err)
		}
		opts = append(opts, publichttp.WithTrustedProxies(proxies))
	}
	if n.cfg.Directory { // a search ranks every held card: only a directory offers it to anyone
		opts = append(opts, publichttp.WithCatalog(n.catalogHandler(n.cfg.PublicURL)))
	}
	srv, err := publichttp.New(n, opts...)
	if err != nil {
		return fmt.Errorf("node: public http: %w", err)
	}
	ln, err := net.Listen("tcp", n.cfg.PublicHTTP)
	if err != nil {
		return fmt.Errorf("node: public http listen: %w", err)
	}
	n.mu.Lock()
	n.publicSrv, n.publicURL = srv, "http://"+ln.Addr().String()
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("public http stopped", "err", err)
		}
	}()
	n.log.Info("public http listening", "addr", ln.Addr().String())
	return nil
}

// closePublic shuts the public server down, waiting a little for the
// requests in flight.
func closePublic(srv *publichttp.Server) error {
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return errors.Join(fmt.Errorf("node: public http shutdown: %w", err), srv.Close())
	}
	return nil
}

// PublicURL returns the public server's address as an http URL (the
// address it listens on, not Config.PublicURL), "" when it is off.
func (n *Node) PublicURL() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.publicURL
}

// HeldCard returns the card of agentID this node holds, never looking
// for it on the network (store.ErrNotFound when it holds none).
func (n *Node) HeldCard(ctx context.Context, agentID string) (*store.Record, error) {
	id, err := normalizeAgentID(agentID)
	if err != nil {
		return nil, err
	}
	return n.store.Card(ctx, id)
}
