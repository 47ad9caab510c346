package aitp

import (
	"bufio"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
)

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
