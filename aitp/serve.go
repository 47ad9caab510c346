package aitp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// This file runs handlers: their context and deadline, the TIMEOUT
// answer, panics, the ResponseWriter and the final RESPONSE.

// start prepares a complete request to run; the read loop hands it to
// readOn.
func (c *serverConn) start(r *serverReq) {
	timeout := c.srv.cfg.handlerTimeout
	if r.deadline > 0 && r.deadline < timeout {
		timeout = r.deadline
	}
	r.started = time.Now()
	ctx, cancel := context.WithCancelCause(c.ctx)
	r.ctx = &reqContext{Context: ctx, deadline: r.started.Add(timeout)}
	r.cancelCause = cancel
	r.cancel = func() { cancel(context.Canceled) }
	c.next = r
}

// reqContext is a handler's context. It reports the request's deadline,
// but its timer is armed only when the handler outlives handoffDelay
// (armDeadline): most handlers finish sooner, and a call then costs no
// timer at all. Once the deadline passes, Err is DeadlineExceeded;
// contexts derived from it see Canceled with DeadlineExceeded as their
// context.Cause.
type reqContext struct {
	context.Context
	deadline time.Time
}

func (c *reqContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *reqContext) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// armDeadline starts r's deadline timer unless it runs already or r has
// finished: at the deadline the handler's context ends and the caller is
// answered TIMEOUT, even when the handler ignores its context.
func (c *serverConn) armDeadline(r *serverReq) {
	r.timerMu.Lock()
	defer r.timerMu.Unlock()
	if r.timer != nil || r.disarmed {
		return
	}
	dl := r.ctx.(*reqContext).deadline
	r.timer = time.AfterFunc(time.Until(dl), func() {
		r.cancelCause(context.DeadlineExceeded)
		c.finish(r, Errorf(StatusTimeout, CodeTimeout, "", "deadline exceeded after %s", time.Since(r.started).Round(time.Millisecond)), nil)
	})
}

// disarmDeadline stops r's deadline timer and keeps it from being armed.
func (r *serverReq) disarmDeadline() {
	r.timerMu.Lock()
	defer r.timerMu.Unlock()
	r.disarmed = true
	if r.timer != nil {
		r.timer.Stop()
	}
}

func (c *serverConn) serve(r *serverReq) {
	ctx := r.ctx
	dl, _ := ctx.Deadline()
	r.req = Request{Remote: c.remote, RemoteAddr: c.addr, Method: r.method, Body: r.body, StreamReply: r.flags&FlagStreamReply != 0, Deadline: dl}
	bp := replyPool.Get().(*[]byte)
	r.w = respWriter{c: c, r: r, stream: r.req.StreamReply, max: c.srv.cfg.maxResponseBody, buf: (*bp)[:0]}
	defer func() {
		// finish has copied the reply out; late writes see r.done.
		if cap(r.w.buf) <= maxPooledReply {
			*bp = r.w.buf[:0]
			replyPool.Put(bp)
		}
	}()
	w, req := &r.w, &r.req
	err := c.call(ctx, r.handler, w, req)
	r.disarmDeadline()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		c.finish(r, Errorf(StatusTimeout, CodeTimeout, "", "deadline exceeded"), nil)
	case err == nil:
		c.finish(r, nil, nil) // the buffered reply, read under r.mu
	default:
		var e *Error
		if !errors.As(err, &e) {
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				e = Errorf(StatusError, CodeCanceled, "", "canceled")
			} else {
				// A plain error may carry local details (paths, addresses):
				// it is logged here and the caller learns only that the
				// handler failed. Handlers that mean to explain return *Error.
				c.srv.log.Debug("aitp: handler error", "peer", c.remote, "method", req.Method, "err", err)
				e = Errorf(StatusError, CodeInternal, "", "handler failed")
			}
		}
		c.finish(r, e, nil)
	}
	r.cancel()
	c.unlist(r)
	c.mu.Lock()
	if r.reserved > 0 {
		c.st.Scope().ReleaseMemory(r.reserved)
		r.reserved = 0
	}
	c.mu.Unlock()
	c.srv.release(c.remote)
	c.checkDrained()
}

// call runs the authorizer and the handler, turning a panic into an error.
func (c *serverConn) call(ctx context.Context, h Handler, w *respWriter, req *Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("aitp: handler panic", "peer", c.remote, "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			err = Errorf(StatusError, CodeInternal, "", "handler failed")
		}
	}()
	if a := c.srv.cfg.authorize; a != nil {
		if err := a(ctx, req.Remote, req.Method); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return e
			}
			c.srv.log.Debug("aitp: request refused", "peer", req.Remote, "method", req.Method, "err", err)
			return Errorf(StatusUnauthorized, CodeUnauthorized, "", "not authorized")
		}
	}
	return h.ServeAITP(ctx, w, req)
}

// finish sends the final RESPONSE once: the error's status and body, or
// OK with body (split into STREAM chunks when larger than one message).
func (c *serverConn) finish(r *serverReq, e *Error, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	if e == nil && body == nil {
		body = r.w.buf
	}
	// The window counts requests not yet answered: free the slot before
	// the answer can reach the caller, which may reuse it at once.
	c.unlist(r)
	st := StatusOK
	if e != nil {
		st, body = e.Status, e.body()
	}
	c.srv.metrics.answered(r.method, st)
	max := maxChunk(0, 0)
	for len(body) > max {
		if c.w.write(nil, &Segment{Type: TypeStream, Association: c.assocID(), RequestID: r.id, Sequence: r.outSeq, Body: body[:max]}) != nil {
			return
		}
		r.outSeq++
		body = body[max:]
	}
	c.w.write(nil, &Segment{Type: TypeResponse, Flags: FlagFin, Status: st, Association: c.assocID(), RequestID: r.id, Sequence: r.outSeq, Body: body})
	c.checkDrained()
}

// unlist removes r from the requests awaiting an answer.
func (c *serverConn) unlist(r *serverReq) {
	c.mu.Lock()
	if c.reqs[r.id] == r {
		delete(c.reqs, r.id)
		c.w.inflight.Add(-1)
	}
	c.mu.Unlock()
}

// replyPool recycles buffered reply bodies up to maxPooledReply octets.
var replyPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledReply = 64 << 10

// respWriter is the ResponseWriter of one request.
type respWriter struct {
	c      *serverConn
	r      *serverReq
	stream bool
	max    int
	buf    []byte
}

func (w *respWriter) Write(p []byte) (int, error) {
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return 0, fmt.Errorf("%w: call finished", ErrClosed)
	}
	if !w.stream {
		if len(w.buf)+len(p) > w.max {
			return 0, fmt.Errorf("%w: reply over %d octets", ErrBodyTooLarge, w.max)
		}
		w.buf = append(w.buf, p...)
		return len(p), nil
	}
	max := maxChunk(0, 0)
	n := 0
	for rest := p; len(rest) > 0; {
		k := min(len(rest), max)
		if err := w.c.w.write(nil, &Segment{Type: TypeStream, Association: w.c.assocID(), RequestID: r.id, Sequence: r.outSeq, Body: rest[:k]}); err != nil {
			return n, err
		}
		r.outSeq++
		n += k
		rest = rest[k:]
	}
	return n, nil
}
