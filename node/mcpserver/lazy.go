package mcpserver

import (
	"context"
	"net/http"
	"sync"
)

// Lazy is the Streamable HTTP endpoint of a Server that is built on its
// first request. A node serves /mcp from its start, but few nodes ever
// get an MCP client: building the server resolves the JSON schemas of its
// tools (about 7 ms of CPU at every start) and starts its card poller,
// which reads up to MaxListedCards cards every poll interval. Lazy does
// neither until a client comes. The first request waits for the build and
// for the resource list to match the node's cards, so a client lists them
// at once. It is safe for concurrent use.
type Lazy struct {
	node Node
	opts []Option

	mu     sync.Mutex
	srv    *Server
	h      http.Handler
	closed bool
}

// NewLazy returns the endpoint of a Server of node with opts, not built
// yet.
func NewLazy(node Node, opts ...Option) *Lazy {
	return &Lazy{node: node, opts: opts}
}

// ServeHTTP builds the server on the first request, then hands every
// request to its handler. After Close it answers 503.
func (l *Lazy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := l.handler(r.Context())
	if h == nil {
		http.Error(w, "the MCP server is closed", http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// handler returns the built server's handler, building it first if need
// be; nil once closed.
func (l *Lazy) handler(ctx context.Context) http.Handler {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	if l.srv == nil {
		s := New(l.node, l.opts...)
		if err := s.res.sync(ctx); err != nil && ctx.Err() == nil {
			s.cfg.log.Debug("mcp: card list", "err", err) // the poller tries again
		}
		l.srv, l.h = s, s.Handler()
	}
	return l.h
}

// Built reports whether a request has built the server.
func (l *Lazy) Built() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.srv != nil
}

// Close closes the server if it was built (its poller and sessions); later
// requests are refused. It is idempotent.
func (l *Lazy) Close() error {
	l.mu.Lock()
	s := l.srv
	l.closed = true
	l.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}
