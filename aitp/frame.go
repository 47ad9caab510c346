package aitp

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// maxPendingWrite bounds the octets queued on one stream behind a write
// in progress; writers wait beyond it.
const maxPendingWrite = 256 << 10

// frameWriter serialises frames onto one stream with group commit: a
// writer appends its frame to the pending buffer and, unless another
// writer is already writing, writes the buffer out itself, taking along
// every frame appended meanwhile. Concurrent calls thus share stream
// writes (one yamux frame, one TLS record, one system call) instead of
// paying one each. A write error is sticky.
type frameWriter struct {
	w       io.Writer
	mu      sync.Mutex
	cond    sync.Cond // a write completed
	buf     []byte    // frames waiting to be written
	spare   []byte
	writing bool
	err     error
	// inflight counts the association's calls in flight, kept by its
	// owner; it decides whether waiting for company is worth it.
	inflight atomic.Int32
	// alwaysYield waits for company even with one call in flight: on a
	// server the read loop may be about to start more handlers.
	alwaysYield bool
	// since is when the stream write in progress began (0: none), so a
	// peer that stops reading can be detected; see stuckFor.
	since atomic.Int64
	// Stream offsets, counted from the first octet ever queued: written
	// octets were taken by completed stream writes; handed octets also
	// count the write in progress. The queue starts at handed. They tell
	// a frame that never reached the stream from one that may have; see
	// reached.
	written, handed int64
}

// stuckFor reports how long the stream write in progress has lasted.
func (fw *frameWriter) stuckFor() time.Duration {
	if t := fw.since.Load(); t != 0 {
		return time.Duration(nanotime() - t)
	}
	return 0
}

// clockBase anchors nanotime.
var clockBase = time.Now()

// nanotime is a monotonic clock reading in nanoseconds, never 0.
func nanotime() int64 { return int64(time.Since(clockBase)) + 1 }

func newFrameWriter(w io.Writer, alwaysYield bool) *frameWriter {
	fw := &frameWriter{w: w, alwaysYield: alwaysYield}
	fw.cond.L = &fw.mu
	return fw
}

// write queues one frame (the AIP header with opts, the segment header,
// the method and the body) and writes the queue out unless a write is
// already in progress, in which case that writer takes it along.
func (fw *frameWriter) write(opts []byte, s *Segment) error {
	return fw.writeMethod(opts, s, "")
}

// writeNoWait is write that gives up instead of waiting when the queue is
// full: for a last word (ABORT) to a peer that may have stopped reading.
func (fw *frameWriter) writeNoWait(s *Segment) error {
	fw.mu.Lock()
	full := fw.writing && len(fw.buf) >= maxPendingWrite
	fw.mu.Unlock()
	if full {
		return ErrBusyWriter
	}
	if d, ok := fw.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		d.SetWriteDeadline(time.Now().Add(lastWordTimeout))
		defer d.SetWriteDeadline(time.Time{})
	}
	return fw.write(nil, s)
}

// lastWordTimeout bounds the write of an ABORT.
const lastWordTimeout = time.Second

// writeMethod is write with the method given as a string (s.Method must
// then be empty), which saves converting it on the call path.
func (fw *frameWriter) writeMethod(opts []byte, s *Segment, method string) error {
	_, err := fw.writeAt(opts, s, method)
	return err
}

// writeAt is writeMethod that also returns the stream offset of the
// frame's first octet, for reached.
func (fw *frameWriter) writeAt(opts []byte, s *Segment, method string) (at int64, err error) {
	var hdr [frameHeaderMax]byte
	h, err := appendFrameHeader(hdr[:0], opts, s, len(method))
	if err != nil {
		return 0, err
	}
	fw.mu.Lock()
	for fw.err == nil && fw.writing && len(fw.buf) >= maxPendingWrite {
		fw.cond.Wait()
	}
	at = fw.handed + int64(len(fw.buf))
	if fw.err != nil {
		err := fw.err
		fw.mu.Unlock()
		return at, err
	}
	fw.buf = append(fw.buf, h...)
	fw.buf = append(fw.buf, s.Method...)
	fw.buf = append(fw.buf, method...)
	fw.buf = append(fw.buf, s.Body...)
	return at, fw.flushLocked()
}

// reached reports whether any octet from stream offset at on may have
// gone into the stream. It waits while a stream write in progress holds
// that octet: the write's outcome decides. False means the frame at that
// offset never reached the stream, and never will once the writer has
// failed.
func (fw *frameWriter) reached(at int64) bool {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	for fw.written <= at && at < fw.handed {
		fw.cond.Wait()
	}
	return fw.written > at
}

// flushLocked writes the queue out unless another writer is doing so; it
// unlocks fw.mu.
func (fw *frameWriter) flushLocked() error {
	if fw.writing {
		fw.mu.Unlock()
		return nil
	}
	fw.writing = true
	// With other calls in flight, let writers that are already runnable
	// append their frames first, so that one stream write carries them
	// all. Alone, write at once.
	if fw.alwaysYield || fw.inflight.Load() > 1 {
		fw.mu.Unlock()
		runtime.Gosched()
		fw.mu.Lock()
	}
	for len(fw.buf) > 0 && fw.err == nil {
		b := fw.buf
		fw.buf = fw.spare[:0]
		fw.handed += int64(len(b))
		fw.mu.Unlock()
		fw.since.Store(nanotime())
		n, err := fw.w.Write(b)
		fw.since.Store(0)
		fw.mu.Lock()
		// A failed write may have taken a prefix of b; the rest of b and
		// the queue never reach the stream.
		fw.written += int64(n)
		fw.handed = fw.written
		if cap(b) <= 2*MaxMessageSize {
			fw.spare = b[:0]
		} else {
			fw.spare = nil // let a burst's buffer go
		}
		if err != nil && fw.err == nil {
			fw.err = err
		}
		fw.cond.Broadcast()
	}
	fw.writing = false
	err := fw.err
	fw.mu.Unlock()
	return err
}

// writeControl sends an AIP control message quoting the offending message.
func (fw *frameWriter) writeControl(code uint8, pointer uint16, quote []byte) error {
	if len(quote) > MaxControlQuote {
		quote = quote[:MaxControlQuote]
	}
	payload := make([]byte, 0, ControlHeaderSize+len(quote))
	payload = append(payload, code, 0, byte(pointer>>8), byte(pointer))
	payload = append(payload, quote...)
	m := Message{Version: Version, TTL: DefaultTTL, NextProto: NextProtoControl, Payload: payload}
	fw.mu.Lock()
	for fw.err == nil && fw.writing && len(fw.buf) >= maxPendingWrite {
		fw.cond.Wait()
	}
	if fw.err != nil {
		err := fw.err
		fw.mu.Unlock()
		return err
	}
	var err error
	if fw.buf, err = AppendMessage(fw.buf, &m); err != nil {
		fw.mu.Unlock()
		return err
	}
	return fw.flushLocked()
}

// fail makes every later write return err.
func (fw *frameWriter) fail(err error) {
	fw.mu.Lock()
	if fw.err == nil {
		fw.err = err
	}
	fw.cond.Broadcast()
	fw.mu.Unlock()
}

// bufPool holds MaxMessageSize read buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, MaxMessageSize); return &b }}

// readBufSize is the buffered reader of a stream.
const readBufSize = 8 << 10

// streamMemory is what a stream reserves from its resource scope: the
// message buffer, the buffered reader and one message of write queue. The
// write queue may grow to maxPendingWrite under bursts; reserving that for
// every idle stream would starve the resource manager's limits.
const streamMemory = 2*MaxMessageSize + readBufSize

// parseDeadline returns the deadline option's milliseconds (0 when absent)
// and whether an unknown must-understand option was present.
func parseOptions(opts []byte) (deadlineMS uint32, unknownMust bool, err error) {
	err = ForEachOption(opts, func(typ uint8, v []byte) error {
		switch typ {
		case OptionDeadline:
			if len(v) != 4 {
				return ErrMalformed
			}
			deadlineMS = uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
		default:
			if typ&OptionMustUnderstand != 0 {
				unknownMust = true
			}
		}
		return nil
	})
	return deadlineMS, unknownMust, err
}
