package aitp

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"
)

type serverConfig struct {
	log             *slog.Logger
	reg             prometheus.Registerer
	authorize       func(ctx context.Context, remote peer.ID, method string) error
	window          int
	maxPeerInflight int
	maxInflight     int
	maxStreamsPeer  int
	maxRequestBody  int
	maxResponseBody int
	maxPartialBytes int
	handlerTimeout  time.Duration
	idle            time.Duration
	writeTimeout    time.Duration
	localAddr       string
}

// ServerOption configures a Server.
type ServerOption func(*serverConfig) error

func defaultServerConfig() serverConfig {
	return serverConfig{
		log:             slog.New(slog.DiscardHandler),
		window:          DefaultWindow,
		maxPeerInflight: DefaultMaxPeerInflight,
		maxInflight:     DefaultMaxInflight,
		maxStreamsPeer:  DefaultMaxStreamsPeer,
		maxRequestBody:  DefaultMaxRequestBody,
		maxResponseBody: DefaultMaxResponseBody,
		maxPartialBytes: DefaultMaxPartialBytes,
		handlerTimeout:  DefaultHandlerTimeout,
		idle:            DefaultServerIdle,
		writeTimeout:    DefaultWriteTimeout,
	}
}

// WithServerLogger sets the server's logger (default: discard).
func WithServerLogger(l *slog.Logger) ServerOption {
	return func(c *serverConfig) error {
		if l == nil {
			return fmt.Errorf("aitp: nil logger")
		}
		c.log = l
		return nil
	}
}

// WithServerRegisterer registers the server's metrics (aitp_server_*) on
// reg. Without it nothing is registered.
func WithServerRegisterer(reg prometheus.Registerer) ServerOption {
	return func(c *serverConfig) error {
		c.reg = reg
		return nil
	}
}

// WithAuthorizer installs a hook run before every handler. A non-nil error
// answers UNAUTHORIZED (an *Error is sent as it is).
func WithAuthorizer(f func(ctx context.Context, remote peer.ID, method string) error) ServerOption {
	return func(c *serverConfig) error {
		c.authorize = f
		return nil
	}
}

func positive(name string, v int, set func()) error {
	if v <= 0 {
		return fmt.Errorf("aitp: %s must be positive, got %d", name, v)
	}
	set()
	return nil
}

// WithWindow sets the number of requests one association may have in
// flight (advertised in ACCEPT, 1..65535). Excess requests get BUSY.
func WithWindow(n int) ServerOption {
	return func(c *serverConfig) error {
		if n > 0xffff {
			return fmt.Errorf("aitp: window %d above 65535", n)
		}
		return positive("window", n, func() { c.window = n })
	}
}

// WithMaxPeerInflight bounds the requests in flight from one peer across
// all its streams.
func WithMaxPeerInflight(n int) ServerOption {
	return func(c *serverConfig) error { return positive("peer in-flight", n, func() { c.maxPeerInflight = n }) }
}

// WithMaxInflight bounds the requests in flight on the whole server.
func WithMaxInflight(n int) ServerOption {
	return func(c *serverConfig) error { return positive("in-flight", n, func() { c.maxInflight = n }) }
}

// WithMaxStreamsPerPeer bounds the AITP streams one peer may hold open.
func WithMaxStreamsPerPeer(n int) ServerOption {
	return func(c *serverConfig) error { return positive("streams per peer", n, func() { c.maxStreamsPeer = n }) }
}

// WithMaxRequestBody bounds the total body of one request (default 1 MiB).
func WithMaxRequestBody(n int) ServerOption {
	return func(c *serverConfig) error { return positive("request body", n, func() { c.maxRequestBody = n }) }
}

// WithMaxResponseBody bounds a buffered (non-streamed) reply.
func WithMaxResponseBody(n int) ServerOption {
	return func(c *serverConfig) error { return positive("response body", n, func() { c.maxResponseBody = n }) }
}

// WithMaxPartialBytes bounds the request body octets one stream may hold
// while their requests are still arriving.
func WithMaxPartialBytes(n int) ServerOption {
	return func(c *serverConfig) error { return positive("partial bytes", n, func() { c.maxPartialBytes = n }) }
}

// WithHandlerTimeout caps every handler's time, whatever deadline the
// caller asked for.
func WithHandlerTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) error {
		if d <= 0 {
			return fmt.Errorf("aitp: handler timeout must be positive")
		}
		c.handlerTimeout = d
		return nil
	}
}

// WithServerIdleTimeout sets how long an association may stay without
// traffic and requests before the server closes it.
func WithServerIdleTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) error {
		if d <= 0 {
			return fmt.Errorf("aitp: idle timeout must be positive")
		}
		c.idle = d
		return nil
	}
}

// WithWriteTimeout sets how long a write on a stream may stay blocked (the
// peer not reading) before the association is aborted.
func WithWriteTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) error {
		if d <= 0 {
			return fmt.Errorf("aitp: write timeout must be positive")
		}
		c.writeTimeout = d
		return nil
	}
}

// WithLocalAddress sets the address (agent URI) this server answers to. A
// message whose dst is neither empty nor this address is refused with
// ControlDestinationUnknown.
func WithLocalAddress(addr string) ServerOption {
	return func(c *serverConfig) error {
		if len(addr) > MaxAddressLen {
			return fmt.Errorf("%w: address longer than %d octets", ErrTooLarge, MaxAddressLen)
		}
		c.localAddr = addr
		return nil
	}
}

type clientConfig struct {
	log             *slog.Logger
	reg             prometheus.Registerer
	now             func() time.Time
	maxResponseBody int
	maxRequestBody  int
	maxStreamBuffer int
	idle            time.Duration
	writeTimeout    time.Duration
	openTimeout     time.Duration
	breakerFailures int
	breakerCooldown time.Duration
}

// ClientOption configures a Client.
type ClientOption func(*clientConfig)

func defaultClientConfig() clientConfig {
	return clientConfig{
		log:             slog.New(slog.DiscardHandler),
		now:             time.Now,
		maxResponseBody: DefaultMaxResponseBody,
		maxRequestBody:  DefaultMaxRequestBody,
		maxStreamBuffer: DefaultMaxStreamBuffer,
		idle:            DefaultClientIdle,
		writeTimeout:    DefaultWriteTimeout,
		openTimeout:     DefaultOpenTimeout,
		breakerFailures: DefaultBreakerFailures,
		breakerCooldown: DefaultBreakerCooldown,
	}
}

// WithClientLogger sets the client's logger (default: discard).
func WithClientLogger(l *slog.Logger) ClientOption {
	return func(c *clientConfig) {
		if l != nil {
			c.log = l
		}
	}
}

// WithClientRegisterer registers the client's metrics (aitp_client_*) on
// reg. Without it nothing is registered.
func WithClientRegisterer(reg prometheus.Registerer) ClientOption {
	return func(c *clientConfig) { c.reg = reg }
}

// WithClock injects the clock the circuit breaker uses.
func WithClock(now func() time.Time) ClientOption {
	return func(c *clientConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// WithClientMaxResponseBody bounds a buffered reply (default 16 MiB).
func WithClientMaxResponseBody(n int) ClientOption {
	return func(c *clientConfig) {
		if n > 0 {
			c.maxResponseBody = n
		}
	}
}

// WithClientMaxRequestBody bounds the body Call and Stream send
// (default 1 MiB, the server default).
func WithClientMaxRequestBody(n int) ClientOption {
	return func(c *clientConfig) {
		if n > 0 {
			c.maxRequestBody = n
		}
	}
}

// WithMaxStreamBuffer bounds the reply octets a ReplyStream buffers
// before its reader takes them; past it the call fails with
// ErrStreamOverflow.
func WithMaxStreamBuffer(n int) ClientOption {
	return func(c *clientConfig) {
		if n > 0 {
			c.maxStreamBuffer = n
		}
	}
}

// WithClientIdleTimeout sets how long an unused association stays open.
func WithClientIdleTimeout(d time.Duration) ClientOption {
	return func(c *clientConfig) {
		if d > 0 {
			c.idle = d
		}
	}
}

// WithClientWriteTimeout sets how long a write on a stream may stay
// blocked before the association is failed.
func WithClientWriteTimeout(d time.Duration) ClientOption {
	return func(c *clientConfig) {
		if d > 0 {
			c.writeTimeout = d
		}
	}
}

// WithBreaker sets the circuit breaker: it opens after failures
// consecutive failures and lets one probe through after cooldown.
func WithBreaker(failures int, cooldown time.Duration) ClientOption {
	return func(c *clientConfig) {
		if failures > 0 {
			c.breakerFailures = failures
		}
		if cooldown > 0 {
			c.breakerCooldown = cooldown
		}
	}
}

type callConfig struct {
	idempotent bool
}

// CallOption configures one call.
type CallOption func(*callConfig)

// Idempotent marks the call safe to repeat: it is retried once on a fresh
// stream when the stream breaks before the reply arrives.
func Idempotent() CallOption { return func(c *callConfig) { c.idempotent = true } }
