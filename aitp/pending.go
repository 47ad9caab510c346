package aitp

import (
	"fmt"
	"sync"
	"time"
)

// This file holds a client call's state and the delivery of its reply.

// pending is one call awaiting its reply.
type pending struct {
	id        uint32
	at        int64 // stream offset of the REQUEST frame (frameWriter.reached)
	stream    bool
	abandoned bool // the caller left; the reply only frees the window
	// refused: answered BUSY after the server's CLOSE, which is how a
	// server refuses a call racing its close; the handler did not run.
	refused  bool
	finished bool
	seq      uint32
	status   Status
	body     []byte   // buffered reply, or the error body
	chunks   [][]byte // streamed reply not yet taken
	buffered int
	err      error
	done     chan struct{} // signalled once when finished (buffered calls)
	woken    bool          // done was signalled
	notify   chan struct{} // signalled on every change (streamed calls)
}

// pendingPool recycles the pending state of buffered calls.
var pendingPool = sync.Pool{New: func() any { return &pending{done: make(chan struct{}, 1)} }}

func newPending(stream bool) *pending {
	if stream {
		return &pending{stream: true, notify: make(chan struct{}, 1)}
	}
	return pendingPool.Get().(*pending)
}

// recycle returns a buffered call's state to the pool once nothing refers
// to it: finished (so out of the pending map) and not abandoned.
func (cc *clientConn) recycle(pd *pending) {
	cc.mu.Lock()
	ok := pd.finished && !pd.abandoned && !pd.stream
	cc.mu.Unlock()
	if !ok {
		return
	}
	done := pd.done
	select {
	case <-done:
	default:
	}
	*pd = pending{done: done}
	pendingPool.Put(pd)
}

func (pd *pending) result() ([]byte, error) {
	if pd.err != nil {
		return nil, pd.err
	}
	if pd.status != StatusOK {
		return nil, errorFromResponse(pd.status, pd.body)
	}
	if pd.body == nil {
		return []byte{}, nil
	}
	return pd.body, nil
}

// nextChunk takes the next streamed chunk; fin reports the call's end
// with its error.
func (cc *clientConn) nextChunk(pd *pending) (chunk []byte, fin bool, err error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if len(pd.chunks) > 0 {
		chunk = pd.chunks[0]
		pd.chunks[0] = nil
		pd.chunks = pd.chunks[1:]
		pd.buffered -= len(chunk)
		return chunk, false, nil
	}
	if pd.err != nil {
		return nil, true, pd.err
	}
	if !pd.finished {
		return nil, false, nil
	}
	if pd.status != StatusOK {
		return nil, true, errorFromResponse(pd.status, pd.body)
	}
	return nil, true, nil
}

// finishLocked completes pd and wakes its caller.
func (cc *clientConn) finishLocked(pd *pending) {
	if pd.finished {
		return
	}
	pd.finished = true
	delete(cc.pend, pd.id)
	wakeLocked(pd)
}

// wakeLocked tells pd's caller something changed.
func wakeLocked(pd *pending) {
	if pd.done != nil && !pd.woken {
		pd.woken = true
		pd.done <- struct{}{} // capacity 1, sent once
	}
	if pd.notify != nil {
		select {
		case pd.notify <- struct{}{}:
		default:
		}
	}
}

// onReply handles a STREAM chunk or the final RESPONSE of a call. It
// reports whether the call overflowed and the remote must get a CANCEL.
func (cc *clientConn) onReply(seg *Segment) (cancel bool, err error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	pd := cc.pend[seg.RequestID]
	if pd == nil {
		return false, nil // a reply to a call that failed locally
	}
	if seg.Sequence != pd.seq {
		return false, fmt.Errorf("%w: reply sequence %d, expected %d", ErrProtocol, seg.Sequence, pd.seq)
	}
	pd.seq++
	final := seg.Type == TypeResponse
	if final {
		cc.releaseLocked()
		cc.lastUsed = time.Now()
	}
	switch {
	case pd.abandoned || pd.err != nil:
	case final && seg.Status != StatusOK:
		pd.status = seg.Status
		pd.body = append([]byte(nil), seg.Body...)
		pd.refused = seg.Status == StatusBusy && cc.closeRecv
	case pd.stream:
		if len(seg.Body) > 0 {
			if pd.buffered+len(seg.Body) > cc.cl.cfg.maxStreamBuffer {
				cancel = !final
				overflowLocked(pd)
				break
			}
			pd.chunks = append(pd.chunks, append([]byte(nil), seg.Body...))
			pd.buffered += len(seg.Body)
			select {
			case pd.notify <- struct{}{}:
			default:
			}
		}
	default:
		if len(pd.body)+len(seg.Body) > cc.cl.cfg.maxResponseBody {
			cancel = !final
			overflowLocked(pd)
			break
		}
		if pd.body == nil && final {
			pd.body = make([]byte, 0, len(seg.Body))
		}
		pd.body = append(pd.body, seg.Body...)
	}
	if final {
		cc.finishLocked(pd)
	}
	return cancel, nil
}

// overflowLocked fails a call whose reply outgrew its buffer; the rest of
// the reply is discarded.
func overflowLocked(pd *pending) {
	pd.err = fmt.Errorf("%w: reply over the buffer limit", ErrStreamOverflow)
	pd.chunks, pd.buffered, pd.body = nil, 0, nil
	pd.abandoned = true
	wakeLocked(pd)
}
