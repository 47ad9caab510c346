package mcpserver

import (
	"log/slog"
	"runtime/debug"
	"time"
)

// Defaults.
const (
	// DefaultPollInterval is how often the server reads the node's card
	// list to keep its resources current.
	DefaultPollInterval = 2 * time.Second
	// MaxListedCards bounds the held cards listed as resources; any held
	// card can still be read through the adp://agents/{id} template.
	MaxListedCards = 1000
	// DefaultMaxStreamedReply bounds the sum of the chunks of a streamed
	// reply that invoke_agent keeps for its result, in bytes: the bound
	// of a reply that is not streamed (aitp's DefaultMaxResponseBody).
	DefaultMaxStreamedReply = 16 << 20
)

// Option configures a Server.
type Option func(*config)

type config struct {
	log       *slog.Logger
	poll      time.Duration
	version   string
	maxStream int
	sessionID func() string // the SDK's GetSessionID; nil: its default (tests hook it)
}

func newConfig(opts []Option) config {
	c := config{log: slog.New(slog.DiscardHandler), poll: DefaultPollInterval, version: buildVersion(), maxStream: DefaultMaxStreamedReply}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithPollInterval sets how often the card list is read (default
// DefaultPollInterval; values below 10 ms are raised to it).
func WithPollInterval(d time.Duration) Option {
	return func(c *config) { c.poll = max(d, 10*time.Millisecond) }
}

// buildVersion is the main module's version, "dev" when unknown.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// WithVersion sets the server version reported at initialization
// (default: the main module's version from the build information).
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithMaxStreamedReply sets the bound of a streamed reply's chunks, in
// bytes (default DefaultMaxStreamedReply; values below 1 are raised to
// it).
func WithMaxStreamedReply(n int) Option { return func(c *config) { c.maxStream = max(n, 1) } }
