package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Option configures the API.
type Option func(*config)

type config struct {
	log     *slog.Logger
	metrics http.Handler
	baseCtx context.Context
	mcp     http.Handler
	didPath string
	didDoc  http.Handler
	a2a     http.Handler
	catalog http.Handler // GET aicatalog.WellKnownPath, POST aicatalog.SearchPath
	webReg  http.Handler // POST webreg.RegisterPath
	// heartbeat is the event streams' heartbeat interval; streams is set
	// by NewServer, which closes it on Shutdown.
	heartbeat time.Duration
	streams   *streams
}

func newConfig(opts []Option) config {
	c := config{log: slog.New(slog.DiscardHandler), metrics: http.NotFoundHandler(), baseCtx: context.Background(), heartbeat: eventHeartbeat}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithMetrics sets the handler of GET /metrics (default: 404).
func WithMetrics(h http.Handler) Option { return func(c *config) { c.metrics = h } }

// WithBaseContext sets the context every request's context derives from
// (default context.Background()); the node passes its lifetime context.
func WithBaseContext(ctx context.Context) Option { return func(c *config) { c.baseCtx = ctx } }

// MCPPath is where WithMCP mounts an MCP server's Streamable HTTP
// transport.
const MCPPath = "/mcp"

// WithMCP serves h (an MCP server's Streamable HTTP transport) at
// MCPPath, behind the same guards as every route (default: none).
func WithMCP(h http.Handler) Option { return func(c *config) { c.mcp = h } }

// A2APath is where WithA2A mounts an A2A JSON-RPC server: the URL of
// the JSON-RPC interfaces of the A2A card the API serves.
const A2APath = "/a2a"

// WithA2A serves h (an a2aserver.Server) at A2APath, behind the same
// guards as every route, and names it in the A2A card at
// /.well-known/agent-card.json (default: none).
func WithA2A(h http.Handler) Option { return func(c *config) { c.a2a = h } }

// WithCatalog serves h (a directory's aicatalog.Handler) at GET
// aicatalog.WellKnownPath and POST aicatalog.SearchPath (default: none).
func WithCatalog(h http.Handler) Option { return func(c *config) { c.catalog = h } }

// WithWebRegistration serves h (a directory's webreg.Registry.Handler) at
// POST webreg.RegisterPath (default: none).
func WithWebRegistration(h http.Handler) Option { return func(c *config) { c.webReg = h } }

// WithEventHeartbeat sets the interval of the heartbeat comment on
// GET /v1/events streams (default 15s).
func WithEventHeartbeat(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.heartbeat = d
		}
	}
}

// WithDIDDocument serves h, the node's did:wba DID document, at path (its
// DID's document path, for example /.well-known/did.json); nothing when
// path is "" or h nil (the default).
func WithDIDDocument(path string, h http.Handler) Option {
	return func(c *config) { c.didPath, c.didDoc = path, h }
}
