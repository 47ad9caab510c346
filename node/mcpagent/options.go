package mcpagent

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/adp"
)

// Option configures an Agent.
type Option func(*config)

type config struct {
	command   []string
	url       string
	transport func() mcp.Transport
	onTools   func(tools []adp.Tool, ext json.RawMessage)
	log       *slog.Logger
	minBack   time.Duration
	maxBack   time.Duration
	stable    time.Duration
	callLimit time.Duration
}

// Command runs argv (program and arguments) and speaks MCP over its
// stdin and stdout; its stderr is kept for the last error.
func Command(argv ...string) Option {
	return func(c *config) { c.command = append([]string(nil), argv...) }
}

// URL connects to a Streamable HTTP MCP endpoint.
func URL(u string) Option { return func(c *config) { c.url = u } }

// Transport connects through a transport made afresh for every connect
// (tests use mcp.NewInMemoryTransports).
func Transport(f func() mcp.Transport) Option { return func(c *config) { c.transport = f } }

// OnToolsChanged is called, from the supervisor goroutine, with the
// server's tools each time the list differs from the one before it
// (including the first). ext is the bridge's extensions["mcp"] member
// for the card (titles, annotations, _meta), or nil.
func OnToolsChanged(f func(tools []adp.Tool, ext json.RawMessage)) Option {
	return func(c *config) { c.onTools = f }
}

// Logger receives the agent's logs; default discards.
func Logger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// Backoff sets the restart backoff: the first wait, its bound, and how
// long a session must live for the wait to start again from min. Zero
// values keep the defaults.
func Backoff(min, max, stable time.Duration) Option {
	return func(c *config) { c.minBack, c.maxBack, c.stable = min, max, stable }
}

// CallTimeout bounds a call that came without a deadline.
func CallTimeout(d time.Duration) Option { return func(c *config) { c.callLimit = d } }

func (c *config) withDefaults() {
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.minBack <= 0 {
		c.minBack = DefaultMinBackoff
	}
	if c.maxBack <= 0 {
		c.maxBack = DefaultMaxBackoff
	}
	if c.maxBack < c.minBack {
		c.maxBack = c.minBack
	}
	if c.stable <= 0 {
		c.stable = DefaultStablePeriod
	}
	if c.callLimit <= 0 {
		c.callLimit = DefaultCallTimeout
	}
}
