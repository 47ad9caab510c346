package aitp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Client calls methods on remote servers. It keeps one stream (one
// association) per peer and multiplexes calls on it by request id. It is
// safe for concurrent use. Close aborts every association and waits for
// the client's reader goroutines.
type Client struct {
	h       host.Host
	cfg     clientConfig
	log     *slog.Logger
	metrics *clientMetrics
	ctx     context.Context
	cancel  context.CancelFunc

	mu       sync.Mutex
	conns    map[peer.ID]*clientConn
	dialing  map[peer.ID]*dial
	breakers map[peer.ID]*breaker
	closed   bool

	wg        sync.WaitGroup
	closeOnce sync.Once
}

// maxBreakers is the number of per-peer breakers kept before healthy ones
// are swept.
const maxBreakers = 4096

type dial struct {
	done chan struct{}
	cc   *clientConn
	err  error
}

// NewClient returns a client that opens streams from h.
func NewClient(h host.Host, opts ...ClientOption) *Client {
	cfg := defaultClientConfig()
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		h: h, cfg: cfg, log: cfg.log, ctx: ctx, cancel: cancel,
		metrics:  newClientMetrics(cfg.reg),
		conns:    make(map[peer.ID]*clientConn),
		dialing:  make(map[peer.ID]*dial),
		breakers: make(map[peer.ID]*breaker),
	}
}

// Close aborts every association (pending calls fail with ErrClosed) and
// waits for the reader goroutines. It is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		conns := make([]*clientConn, 0, len(c.conns))
		for _, cc := range c.conns {
			conns = append(conns, cc)
		}
		c.conns = map[peer.ID]*clientConn{}
		c.mu.Unlock()
		c.cancel()
		for _, cc := range conns {
			// Settle the calls first: the peer answers the ABORT by
			// resetting the stream, and the reader would otherwise fail
			// them with ErrConnLost before we do.
			cc.settle(ErrClosed)
			cc.w.writeNoWait(&Segment{Type: TypeAbort, Association: cc.assoc})
			cc.fail(ErrClosed)
			cc.st.Reset()
		}
	})
	c.wg.Wait()
	return nil
}

// BreakerState reports the circuit breaker's state for p.
func (c *Client) BreakerState(p peer.ID) BreakerState {
	return c.breaker(p).current(c.cfg.now(), c.cfg.breakerCooldown)
}

func (c *Client) breaker(p peer.ID) *breaker {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.breakers[p]
	if b == nil {
		if len(c.breakers) >= maxBreakers {
			// Healthy breakers carry no state worth keeping: sweep them
			// so the map does not grow with every peer ever called.
			for id, old := range c.breakers {
				if old.idle() {
					delete(c.breakers, id)
				}
			}
		}
		b = &breaker{}
		c.breakers[p] = b
	}
	return b
}

func (c *Client) check(method string, body []byte) error {
	if !ValidMethod(method) {
		return fmt.Errorf("%w: %q", ErrBadMethod, method)
	}
	if len(body) > c.cfg.maxRequestBody {
		return fmt.Errorf("%w: %d octets, limit %d", ErrBodyTooLarge, len(body), c.cfg.maxRequestBody)
	}
	return nil
}

// Call invokes method on p with body and returns the reply body. A
// failure reported by the remote is an *Error (errors.As) carrying its
// status; ErrCircuitOpen means the call was not attempted. A call whose
// request never went into its stream (the association was already dead)
// is sent on a new stream whatever its options; only a call that may have
// reached the remote needs Idempotent to be retried.
func (c *Client) Call(ctx context.Context, p peer.ID, method string, body []byte, opts ...CallOption) ([]byte, error) {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := c.check(method, body); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := c.breaker(p)
	probe, err := b.allow(c.cfg.now(), c.cfg.breakerCooldown)
	if err != nil {
		c.metrics.called(err)
		return nil, err
	}
	out, err := c.callOnce(ctx, p, method, body)
	if err != nil && cfg.idempotent && errors.Is(err, ErrConnLost) && ctx.Err() == nil {
		c.log.Debug("aitp: retrying idempotent call", "peer", p, "method", method, "err", err)
		c.metrics.retried()
		out, err = c.callOnce(ctx, p, method, body)
	}
	b.record(classify(err), probe, c.cfg.now(), c.cfg.breakerFailures)
	c.metrics.called(err)
	return out, err
}

// callOnce makes one attempt at a call: the remote runs it at most once.
// A call whose association turns out dead before its REQUEST went into
// the stream, or that the server refused because it was closing the
// association, is sent again on a new one (no handler ran it).
func (c *Client) callOnce(ctx context.Context, p peer.ID, method string, body []byte) ([]byte, error) {
	resends := 0 // shared with start: maxResends bounds the call's streams
	for {
		cc, pd, err := c.start(ctx, p, method, body, false, &resends)
		if err != nil {
			return nil, err
		}
		if err := cc.await(ctx, pd.done); err != nil && ctx.Err() != nil {
			if !cc.abandon(pd) {
				return nil, ctx.Err()
			}
		}
		out, err := pd.result()
		resend := err != nil && resends < maxResends && ctx.Err() == nil && cc.resendable(pd)
		cc.recycle(pd)
		if !resend {
			return out, err
		}
		resends++
		c.log.Debug("aitp: resending a call no handler ran", "peer", p, "method", method, "err", err)
	}
}

// start sends a request on p's association, opening one when needed. An
// association found closing, or dead before the REQUEST was written, is
// replaced; *resends counts the dead ones against maxResends.
func (c *Client) start(ctx context.Context, p peer.ID, method string, body []byte, stream bool, resends *int) (*clientConn, *pending, error) {
	for {
		cc, err := c.conn(ctx, p)
		var pd *pending
		if err == nil {
			pd, err = cc.send(ctx, method, body, stream)
			if errors.Is(err, errClosing) {
				continue // the association began closing: use a new one
			}
		}
		if isUnsent(err) && *resends < maxResends && ctx.Err() == nil {
			*resends++
			c.log.Debug("aitp: association dead before the request was sent", "peer", p, "method", method, "err", err)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		return cc, pd, nil
	}
}

// Stream invokes method asking for a streamed reply: each chunk the
// handler writes comes out of Next in order. A stream is never retried,
// so Idempotent has no effect here; a call that finds its association
// dead while sending is still sent on a new one. Once the request is
// queued on the stream, a failure ends the call.
func (c *Client) Stream(ctx context.Context, p peer.ID, method string, body []byte, opts ...CallOption) (*ReplyStream, error) {
	if err := c.check(method, body); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := c.breaker(p)
	probe, err := b.allow(c.cfg.now(), c.cfg.breakerCooldown)
	if err != nil {
		return nil, err
	}
	resends := 0
	cc, pd, err := c.start(ctx, p, method, body, true, &resends)
	if err != nil {
		b.record(classify(err), probe, c.cfg.now(), c.cfg.breakerFailures)
		return nil, err
	}
	return &ReplyStream{ctx: ctx, cc: cc, pd: pd, b: b, probe: probe, cl: c}, nil
}

// Ping measures the round trip of a PING on p's association.
func (c *Client) Ping(ctx context.Context, p peer.ID) (time.Duration, error) {
	for {
		cc, err := c.conn(ctx, p)
		if err != nil {
			return 0, err
		}
		d, err := cc.ping(ctx)
		if errors.Is(err, errClosing) {
			continue
		}
		return d, err
	}
}

// conn returns p's open association, opening it once for concurrent
// callers.
func (c *Client) conn(ctx context.Context, p peer.ID) (*clientConn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if cc := c.conns[p]; cc != nil {
		c.mu.Unlock()
		if !cc.st.Conn().IsClosed() && !c.upgradable(cc) {
			return cc, nil
		}
		if !cc.st.Conn().IsClosed() {
			// The association runs over a relay while a direct
			// connection to p exists now: new calls go direct; the
			// old association finishes its calls and closes when idle.
			c.forget(cc)
			return c.conn(ctx, p)
		}
		// The connection under the stream closed before its reader
		// noticed: drop the association and open a new one.
		cc.fail(fmt.Errorf("%w: connection closed", ErrConnLost))
		cc.st.Reset()
		return c.conn(ctx, p)
	}
	d := c.dialing[p]
	if d == nil {
		d = &dial{done: make(chan struct{})}
		c.dialing[p] = d
		c.mu.Unlock()
		d.cc, d.err = c.open(ctx, p)
		c.mu.Lock()
		delete(c.dialing, p)
		if d.err == nil {
			if c.closed {
				d.err = ErrClosed
				d.cc.st.Reset()
			} else {
				c.conns[p] = d.cc
				c.wg.Add(1)
				go d.cc.background()
			}
		}
		c.mu.Unlock()
		close(d.done)
		return d.cc, d.err
	}
	c.mu.Unlock()
	select {
	case <-d.done:
		if d.err != nil {
			if isContextErr(d.err) && ctx.Err() == nil {
				// The dialer's context ended, not ours: dial again.
				return c.conn(ctx, p)
			}
			return nil, d.err
		}
		return d.cc, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// upgradable reports whether cc runs over a limited (relayed) connection
// while a direct one to the same peer is open.
func (c *Client) upgradable(cc *clientConn) bool {
	if !cc.st.Conn().Stat().Limited {
		return false
	}
	for _, conn := range c.h.Network().ConnsToPeer(cc.p) {
		if !conn.Stat().Limited && !conn.IsClosed() {
			return true
		}
	}
	return false
}

// forget removes cc from the map of usable associations.
func (c *Client) forget(cc *clientConn) {
	c.mu.Lock()
	if c.conns[cc.p] == cc {
		delete(c.conns, cc.p)
	}
	c.mu.Unlock()
}

// ReplyStream is the reply of a Stream call. It is not safe for
// concurrent use.
type ReplyStream struct {
	ctx   context.Context
	cl    *Client
	cc    *clientConn
	pd    *pending
	b     *breaker
	probe bool
	ended bool
}

// Next returns the next reply chunk, io.EOF after the last one, or the
// call's error (an *Error for a remote failure).
func (rs *ReplyStream) Next() ([]byte, error) {
	for {
		chunk, fin, err := rs.cc.nextChunk(rs.pd)
		if chunk != nil {
			return chunk, nil
		}
		if fin {
			rs.end(err)
			if err == nil {
				return nil, io.EOF
			}
			return nil, err
		}
		if err := rs.cc.await(rs.ctx, rs.pd.notify); err != nil && rs.ctx.Err() != nil {
			rs.Close()
			return nil, rs.ctx.Err()
		}
	}
}

func (rs *ReplyStream) end(err error) {
	if rs.ended {
		return
	}
	rs.ended = true
	rs.b.record(classify(err), rs.probe, rs.cl.cfg.now(), rs.cl.cfg.breakerFailures)
}

// Close abandons the call when it has not finished (the remote is sent a
// CANCEL). It is idempotent.
func (rs *ReplyStream) Close() error {
	if !rs.ended {
		rs.cc.abandon(rs.pd)
		rs.end(context.Canceled)
	}
	return nil
}
