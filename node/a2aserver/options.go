package a2aserver

import (
	"log/slog"
	"time"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	log          *slog.Logger
	now          func() time.Time
	maxTasks     int
	maxTaskBytes int
	taskTTL      time.Duration
	callTimeout  time.Duration
	maxRunning   int
	maxPublic    int
	perSource    int
	heartbeat    time.Duration
}

func newConfig(opts []Option) config {
	c := config{
		log:          slog.New(slog.DiscardHandler),
		now:          time.Now,
		maxTasks:     DefaultMaxTasks,
		maxTaskBytes: DefaultMaxTaskBytes,
		taskTTL:      DefaultTaskTTL,
		callTimeout:  DefaultCallTimeout,
		maxRunning:   DefaultMaxRunning,
		maxPublic:    DefaultMaxPublicRunning,
		perSource:    DefaultMaxRunningPerSource,
		heartbeat:    sseHeartbeat,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithClock sets the clock of task timestamps and expiry (default
// time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithMaxTasks bounds the tasks kept (default DefaultMaxTasks).
func WithMaxTasks(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxTasks = n
		}
	}
}

// WithMaxTaskBytes bounds the octets of the messages and replies the
// kept tasks hold (default DefaultMaxTaskBytes).
func WithMaxTaskBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxTaskBytes = n
		}
	}
}

// WithTaskTTL sets how long a finished task stays readable (default
// DefaultTaskTTL).
func WithTaskTTL(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.taskTTL = d
		}
	}
}

// WithCallTimeout bounds one tool call (default DefaultCallTimeout).
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.callTimeout = d
		}
	}
}

// WithMaxRunning bounds the tool calls in flight (default
// DefaultMaxRunning); a send beyond it is refused.
func WithMaxRunning(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxRunning = n
		}
	}
}

// WithPublicRunning bounds the calls in flight that came through
// PublicHandler (default DefaultMaxPublicRunning) and those from one
// source among them, an IPv4 address or an IPv6 /64 (default
// DefaultMaxRunningPerSource); a send beyond either is refused. Values
// below 1 are ignored.
func WithPublicRunning(total, perSource int) Option {
	return func(c *config) {
		if total > 0 {
			c.maxPublic = total
		}
		if perSource > 0 {
			c.perSource = perSource
		}
	}
}

// WithHeartbeat sets the interval of the keep-alive comment on event
// streams (default 15s).
func WithHeartbeat(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.heartbeat = d
		}
	}
}
