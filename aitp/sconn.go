package aitp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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

// run starts the read loop in the calling goroutine.
func (c *serverConn) run() {
	c.idle = time.AfterFunc(c.srv.cfg.idle, c.idleCheck)
	c.bp = bufPool.Get().(*[]byte)
	c.br = bufio.NewReaderSize(c.st, readBufSize)
	c.readOn()
}

// readOn runs the read loop in the calling goroutine. When a request
// becomes runnable this goroutine runs the handler: the reply does not
// wait for a goroutine to be scheduled. The read loop moves to another
// goroutine at once when more input is already buffered, or when the
// handler is still running after handoffDelay (so CANCEL, CLOSE and other
// requests are read while it runs); a handler that finishes sooner keeps
// the loop here, which spares the wake-up of another goroutine on every
// call. The request's deadline timer is armed at the same moment. The goroutine that sees the stream end tears the association down.
func (c *serverConn) readOn() {
	for {
		r, err := c.loop(c.br, *c.bp)
		if r == nil {
			c.stop(err)
			return
		}
		if c.br.Buffered() > 0 {
			c.srv.spawn(c.readOnFn)
			c.armDeadline(r)
			c.serve(r)
			return
		}
		var owner atomic.Int32 // handoffRunning, then handoffMoved or handoffKept
		t := time.AfterFunc(handoffDelay, func() {
			c.armDeadline(r)
			if owner.CompareAndSwap(handoffRunning, handoffMoved) {
				c.srv.spawn(c.readOnFn)
			}
		})
		c.serve(r)
		if !owner.CompareAndSwap(handoffRunning, handoffKept) {
			return // the read loop went on in another goroutine
		}
		t.Stop()
	}
}

// handoffDelay is how long a handler runs in the read loop's goroutine
// before the loop moves to another one.
const handoffDelay = 50 * time.Microsecond

// The read loop's owner while a handler runs in its goroutine.
const (
	handoffRunning int32 = iota
	handoffMoved
	handoffKept
)

// stop ends the read loop on err (nil: the association finished).
func (c *serverConn) stop(err error) {
	c.teardown(err)
	bufPool.Put(c.bp)
	c.st.Scope().ReleaseMemory(streamMemory)
	c.srv.dropConn(c)
}

func (c *serverConn) loop(br *bufio.Reader, buf []byte) (*serverReq, error) {
	log := c.srv.log
	for {
		raw, err := readMessage(br, buf)
		if err != nil {
			return nil, err
		}
		c.touch()
		m, err := DecodeMessage(raw)
		if err != nil {
			return nil, err
		}
		if m.TTL == 0 {
			c.w.writeControl(ControlTTLExceeded, 2, raw)
			continue
		}
		if len(m.Dst) > 0 && string(m.Dst) != c.srv.cfg.localAddr {
			c.w.writeControl(ControlDestinationUnknown, MessageHeaderSize, raw)
			continue
		}
		switch m.NextProto {
		case NextProtoAITP:
		case NextProtoControl:
			log.Debug("aitp: control message", "peer", c.remote, "code", firstByte(m.Payload))
			continue
		default:
			c.w.writeControl(ControlProtocolUnsupported, 3, raw)
			continue
		}
		dl, must, err := parseOptions(m.Options)
		if err != nil {
			return nil, err
		}
		if must {
			c.w.writeControl(ControlParameterProblem, uint16(MessageHeaderSize+len(m.Src)+len(m.Dst)), raw)
			continue
		}
		seg, err := DecodeSegment(m.Payload)
		if err != nil {
			if len(m.Payload) < SegmentHeaderSize {
				return nil, err
			}
			// The header is readable: answer the request id.
			seg.Method, seg.Body = nil, nil
			c.reply(seg.RequestID, "", Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "%v", err))
			continue
		}
		if err := c.onSegment(&seg, dl); err != nil {
			return nil, err
		}
		if r := c.next; r != nil {
			c.next = nil
			return r, nil
		}
		c.mu.Lock()
		fin := c.finished
		c.mu.Unlock()
		if fin {
			return nil, nil
		}
	}
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// reply sends a final error RESPONSE for a request that never reached a
// handler.
func (c *serverConn) reply(id uint32, method string, e *Error) {
	c.srv.metrics.answered(method, e.Status)
	c.w.write(nil, &Segment{Type: TypeResponse, Flags: FlagFin, Status: e.Status,
		Association: c.assocID(), RequestID: id, Body: e.body()})
}

func (c *serverConn) onSegment(seg *Segment, deadlineMS uint32) error {
	switch seg.Type {
	case TypeOpen:
		if seg.Association == 0 {
			return fmt.Errorf("%w: association 0", ErrProtocol)
		}
		if a := c.assocID(); a != 0 && a != seg.Association {
			return fmt.Errorf("%w: second association on a stream", ErrProtocol)
		}
		c.assoc.Store(seg.Association)
		return c.w.write(nil, &Segment{Type: TypeAccept, Association: seg.Association, Window: uint16(c.srv.window.Load())})
	case TypeRequest:
		return c.onRequest(seg, deadlineMS)
	case TypeStream:
		return c.onStream(seg)
	case TypeCancel:
		c.mu.Lock()
		r := c.reqs[seg.RequestID]
		if r != nil && !r.running {
			c.dropPartialLocked(r)
		}
		c.mu.Unlock()
		if r == nil {
			return nil
		}
		if r.running {
			r.cancel()
			return nil
		}
		c.srv.release(c.remote)
		c.reply(r.id, r.method, Errorf(StatusError, CodeCanceled, "", "canceled by the caller"))
		c.checkDrained()
		return nil
	case TypePing:
		return c.w.write(nil, &Segment{Type: TypePong, Association: seg.Association, RequestID: seg.RequestID})
	case TypeClose:
		c.mu.Lock()
		c.closeRecv = true
		c.mu.Unlock()
		c.checkDrained()
		return nil
	case TypeCloseAck:
		c.mu.Lock()
		c.closeAcked = true
		c.mu.Unlock()
		c.checkDrained()
		return nil
	case TypeAbort:
		c.abort(false)
		return nil
	default:
		// PONG, WINDOW, ACCEPT and RESPONSE have no meaning towards a
		// server; unknown types are ignored for forward compatibility.
		return nil
	}
}

func (c *serverConn) onRequest(seg *Segment, deadlineMS uint32) error {
	id := seg.RequestID
	if !ValidMethod(seg.Method) {
		c.reply(id, string(seg.Method), Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "invalid method name"))
		return nil
	}
	if seg.Flags&FlagNoReply != 0 {
		c.reply(id, string(seg.Method), Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "NO_REPLY is not supported"))
		return nil
	}
	if seg.Association == 0 {
		c.reply(id, string(seg.Method), Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "association 0"))
		return nil
	}
	if a := c.assocID(); a == 0 {
		c.assoc.Store(seg.Association) // a REQUEST opens the association implicitly
	} else if a != seg.Association {
		c.reply(id, string(seg.Method), Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "unknown association"))
		return nil
	}
	c.mu.Lock()
	if _, dup := c.reqs[id]; dup {
		c.mu.Unlock()
		return fmt.Errorf("%w: duplicate request id %d", ErrProtocol, id)
	}
	closing := c.closeSent || c.closeRecv
	full := len(c.reqs) >= int(c.srv.window.Load())
	c.mu.Unlock()
	if closing {
		c.reply(id, string(seg.Method), Errorf(StatusBusy, CodeBusy, "", "association closing"))
		return nil
	}
	h := (*c.srv.handlers.Load())[string(seg.Method)]
	if h == nil {
		c.reply(id, string(seg.Method), Errorf(StatusNotFound, CodeNotFound, "", "no method %q", seg.Method))
		return nil
	}
	if full || !c.srv.admit(c.remote) {
		c.reply(id, string(seg.Method), Errorf(StatusBusy, CodeBusy, "", "window of %d requests exceeded", c.srv.window.Load()))
		return nil
	}
	r := &serverReq{
		id: id, method: string(seg.Method), handler: h, flags: seg.Flags,
		deadline: time.Duration(deadlineMS) * time.Millisecond, inSeq: 1,
	}
	if len(seg.Body) > c.srv.cfg.maxRequestBody {
		c.srv.release(c.remote)
		c.reply(id, string(seg.Method), Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "request body over %d octets", c.srv.cfg.maxRequestBody))
		return nil
	}
	r.body = append(make([]byte, 0, len(seg.Body)), seg.Body...)
	c.mu.Lock()
	c.reqs[id] = r
	c.w.inflight.Add(1)
	if seg.Flags&FlagFin == 0 {
		c.partial += len(r.body)
		c.mu.Unlock()
		return nil
	}
	r.running = true
	c.mu.Unlock()
	c.start(r)
	return nil
}

func (c *serverConn) onStream(seg *Segment) error {
	c.mu.Lock()
	r := c.reqs[seg.RequestID]
	if r == nil || r.running {
		// A chunk of a request already refused or canceled.
		c.mu.Unlock()
		return nil
	}
	if seg.Sequence != r.inSeq {
		c.dropPartialLocked(r)
		c.mu.Unlock()
		c.srv.release(c.remote)
		c.reply(r.id, r.method, Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "STREAM sequence %d, expected %d", seg.Sequence, r.inSeq))
		c.checkDrained()
		return nil
	}
	r.inSeq++
	var refuse *Error
	switch {
	case len(r.body)+len(seg.Body) > c.srv.cfg.maxRequestBody:
		refuse = Errorf(StatusInvalidRequest, CodeInvalidRequest, "", "request body over %d octets", c.srv.cfg.maxRequestBody)
	case c.partial+len(seg.Body) > c.srv.cfg.maxPartialBytes:
		refuse = Errorf(StatusBusy, CodeBusy, "", "too many request octets in flight")
	default:
		if err := c.st.Scope().ReserveMemory(len(seg.Body), network.ReservationPriorityLow); err != nil {
			refuse = Errorf(StatusBusy, CodeBusy, "", "out of memory for request bodies")
		}
	}
	if refuse != nil {
		c.dropPartialLocked(r)
		c.mu.Unlock()
		c.srv.release(c.remote)
		c.reply(r.id, r.method, refuse)
		c.checkDrained()
		return nil
	}
	r.reserved += len(seg.Body)
	r.body = append(r.body, seg.Body...)
	c.partial += len(seg.Body)
	if seg.Flags&FlagFin == 0 {
		c.mu.Unlock()
		return nil
	}
	c.partial -= len(r.body)
	r.running = true
	c.mu.Unlock()
	c.start(r)
	return nil
}

// dropPartialLocked forgets a request that never started.
func (c *serverConn) dropPartialLocked(r *serverReq) {
	if c.reqs[r.id] == r {
		delete(c.reqs, r.id)
		c.w.inflight.Add(-1)
	}
	c.partial -= len(r.body)
	if r.reserved > 0 {
		c.st.Scope().ReleaseMemory(r.reserved)
		r.reserved = 0
	}
}

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
