package aitp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// serverConn is the server end of one stream and its association.
type serverConn struct {
	srv    *Server
	st     network.Stream
	remote peer.ID
	addr   ma.Multiaddr // the connection's remote address
	w      *frameWriter
	ctx    context.Context
	cancel context.CancelFunc

	assoc atomic.Uint32

	mu         sync.Mutex
	reqs       map[uint32]*serverReq
	partial    int // octets held by requests still arriving
	closeSent  bool
	closeRecv  bool
	closeAcked bool
	finished   bool // the stream is done; no more frames

	lastActive atomic.Int64 // unix nanoseconds
	idle       *time.Timer

	// Read-loop state, owned by the goroutine running the loop.
	br       *bufio.Reader
	bp       *[]byte
	readOnFn func()     // c.readOn, bound once
	next     *serverReq // a request made runnable by the last segment
}

// serverReq is one request on a serverConn.
type serverReq struct {
	id       uint32
	method   string
	handler  Handler
	flags    uint8
	deadline time.Duration
	body     []byte
	inSeq    uint32 // next inbound STREAM sequence
	reserved int    // octets reserved from the stream scope
	running  bool
	ctx      context.Context // a *reqContext
	cancel   context.CancelFunc
	// cancelCause ends ctx; with context.DeadlineExceeded at the deadline.
	cancelCause context.CancelCauseFunc

	timerMu  sync.Mutex  // guards timer and disarmed
	timer    *time.Timer // the deadline timer, once armed
	disarmed bool        // the handler returned: never arm

	req Request
	w   respWriter

	mu      sync.Mutex // guards outSeq and done
	outSeq  uint32
	done    bool // the final RESPONSE went out (or must never go out)
	started time.Time
}

func newServerConn(s *Server, st network.Stream, remote peer.ID) *serverConn {
	ctx, cancel := context.WithCancel(s.ctx)
	c := &serverConn{
		srv: s, st: st, remote: remote, addr: st.Conn().RemoteMultiaddr(), w: newFrameWriter(st, true),
		ctx: ctx, cancel: cancel, reqs: make(map[uint32]*serverReq),
	}
	c.readOnFn = c.readOn
	c.touch()
	return c
}

func (c *serverConn) assocID() uint32 { return c.assoc.Load() }

func (c *serverConn) touch() { c.lastActive.Store(time.Now().UnixNano()) }

// startClose sends CLOSE: no new requests; the stream ends once in-flight
// requests are done and the peer has answered CLOSE_ACK.
func (c *serverConn) startClose() {
	c.mu.Lock()
	if c.closeSent || c.finished {
		c.mu.Unlock()
		return
	}
	c.closeSent = true
	c.mu.Unlock()
	c.w.write(nil, &Segment{Type: TypeClose, Association: c.assocID()})
	c.checkDrained()
}

// checkDrained completes an orderly close once nothing is in flight.
func (c *serverConn) checkDrained() {
	c.mu.Lock()
	if c.finished || len(c.reqs) > 0 {
		c.mu.Unlock()
		return
	}
	switch {
	case c.closeRecv:
		c.finished = true
		c.mu.Unlock()
		c.w.write(nil, &Segment{Type: TypeCloseAck, Association: c.assocID()})
	case c.closeSent && c.closeAcked:
		c.finished = true
		c.mu.Unlock()
	default:
		c.mu.Unlock()
		return
	}
	c.st.Close()
}

// abort fails every in-flight request: handlers are canceled and nothing
// more is sent. With notify it tells the peer with ABORT first.
func (c *serverConn) abort(notify bool) {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.finished = true
	reqs := make([]*serverReq, 0, len(c.reqs))
	for _, r := range c.reqs {
		reqs = append(reqs, r)
	}
	c.mu.Unlock()
	if notify {
		c.w.writeNoWait(&Segment{Type: TypeAbort, Association: c.assocID()})
	}
	c.w.fail(ErrAborted)
	c.cancel()
	// Reset before taking the requests' locks: a handler may hold one
	// while blocked writing to this stream.
	c.st.Reset()
	for _, r := range reqs {
		r.mu.Lock()
		r.done = true
		r.mu.Unlock()
	}
}

func (c *serverConn) idleCheck() {
	idle, wt := c.srv.cfg.idle, c.srv.cfg.writeTimeout
	if stuck := c.w.stuckFor(); stuck > wt {
		c.srv.log.Debug("aitp: peer stopped reading", "peer", c.remote, "stuck", stuck)
		c.abort(false)
		return
	}
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	since := time.Since(time.Unix(0, c.lastActive.Load()))
	busy := len(c.reqs) > 0 || c.w.stuckFor() > 0
	sent := c.closeSent
	c.mu.Unlock()
	switch {
	case busy:
		c.idle.Reset(min(idle, wt))
	case since < idle:
		c.idle.Reset(idle - since)
	case !sent:
		c.srv.log.Debug("aitp: idle association", "peer", c.remote)
		c.startClose()
		c.idle.Reset(idle)
	default:
		// CLOSE went unanswered for a whole idle period.
		c.abort(false)
	}
}

// teardown runs when the read loop ends.
func (c *serverConn) teardown(err error) {
	if c.idle != nil {
		c.idle.Stop()
	}
	c.mu.Lock()
	clean := c.finished
	var partial []*serverReq
	for _, r := range c.reqs {
		if !r.running {
			partial = append(partial, r)
		}
	}
	for _, r := range partial {
		c.dropPartialLocked(r)
	}
	c.mu.Unlock()
	for range partial {
		c.srv.release(c.remote)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		c.srv.log.Debug("aitp: stream failed", "peer", c.remote, "err", err)
	}
	if !clean {
		c.abort(false)
	}
}
