package aitp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"
)

// The client has no reader goroutine in the path of a reply. A caller
// waiting for its reply takes the association's read role when it is free
// and reads frames itself, delivering other calls' replies on the way; the
// reply then wakes no other goroutine, which saves a goroutine hand-off
// per call. When the role holder leaves while other calls are pending, or
// the association has been idle for bgIdle, a background goroutine takes
// the role, so control segments (CLOSE, ABORT, WINDOW) are never left
// unread. A caller whose context ends while it reads interrupts its own
// read with a read deadline; the frame reader keeps any partial frame for
// the next role holder.

// bgIdle is how long the read role may stay free before the background
// reader takes it.
const bgIdle = 2 * time.Millisecond

// errEnded reports that the association ended in order while reading.
var errEnded = errors.New("aitp: association ended")

// frameReader reads AIP messages and can be interrupted and resumed
// between any two reads.
type frameReader struct {
	br  *bufio.Reader
	buf []byte // MaxMessageSize
	n   int    // octets of the current message read so far
}

// next returns the next message; an error leaves a partial message in
// place for the next call.
func (fr *frameReader) next() ([]byte, error) {
	for fr.n < MessageHeaderSize {
		k, err := fr.br.Read(fr.buf[fr.n:MessageHeaderSize])
		fr.n += k
		if err != nil && fr.n < MessageHeaderSize {
			return nil, err
		}
	}
	if fr.buf[0] != Version {
		return nil, fmt.Errorf("%w: %d", ErrVersion, fr.buf[0])
	}
	total := int(binary.BigEndian.Uint16(fr.buf[4:]))
	if total < MessageHeaderSize {
		return nil, fmt.Errorf("%w: total_length %d", ErrMalformed, total)
	}
	for fr.n < total {
		k, err := fr.br.Read(fr.buf[fr.n:total])
		fr.n += k
		if err != nil && fr.n < total {
			return nil, err
		}
	}
	fr.n = 0
	return fr.buf[:total], nil
}

// buffered reports whether octets already received wait to be read.
func (fr *frameReader) buffered() bool { return fr.n > 0 || fr.br.Buffered() > 0 }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// await returns once ready is signalled, reading frames itself while the
// read role is free. It returns ctx's error when ctx ends first, or the
// association's error when it died and ready was not signalled.
func (cc *clientConn) await(ctx context.Context, ready <-chan struct{}) error {
	for {
		select {
		case <-ready:
			return nil
		default:
		}
		cc.mu.Lock()
		if cc.dead != nil {
			err := cc.dead
			cc.mu.Unlock()
			select {
			case <-ready:
				return nil
			default:
				return err
			}
		}
		free := !cc.reading
		mine := free && (cc.canInterrupt || ctx.Done() == nil)
		if mine {
			cc.reading = true
		}
		cc.mu.Unlock()
		if free && !mine {
			// This caller could not be interrupted while reading: let
			// the background reader read.
			select {
			case cc.bgWake <- struct{}{}:
			default:
			}
		}
		if mine {
			err := cc.readUntil(ctx, ready)
			cc.releaseRole()
			if err == nil {
				return nil // ready fired (its signal is consumed)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-cc.deadCh:
		}
	}
}

// readUntil reads frames until ready is signalled. It returns ctx's error
// when ctx ends, or the error that ended the association.
func (cc *clientConn) readUntil(ctx context.Context, ready <-chan struct{}) error {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, cc.interrupt)
		defer stop()
	}
	for {
		select {
		case <-ready:
			return nil
		default:
		}
		err := cc.readOne()
		switch {
		case err == nil:
		case isTimeout(err):
			cc.st.SetReadDeadline(time.Time{})
			if ctx.Err() != nil {
				return ctx.Err()
			}
		default:
			return err
		}
	}
}

// interrupt wakes the role holder out of a blocked read.
func (cc *clientConn) interrupt() { cc.st.SetReadDeadline(time.Now()) }

// releaseRole gives the read role up, handing it to the background reader
// when anyone still waits for a frame.
func (cc *clientConn) releaseRole() {
	buffered := cc.fr.buffered() // still the holder here
	cc.mu.Lock()
	cc.reading = false
	need := cc.dead == nil && (len(cc.pend) > 0 || len(cc.pings) > 0 || cc.closeSent || buffered)
	cc.mu.Unlock()
	if need {
		select {
		case cc.bgWake <- struct{}{}:
		default:
		}
	}
}

// background takes the read role when it is handed over or has been free
// for bgIdle, and reads while anything is pending.
func (cc *clientConn) background() {
	defer cc.cl.wg.Done()
	defer cc.st.Scope().ReleaseMemory(streamMemory)
	t := time.NewTimer(bgIdle)
	defer t.Stop()
	for {
		select {
		case <-cc.bgWake:
		case <-t.C:
		case <-cc.deadCh:
			return
		}
		cc.mu.Lock()
		if cc.dead != nil {
			cc.mu.Unlock()
			return
		}
		// The frame reader belongs to the role holder: buffered octets
		// are reported through bgWake by releaseRole instead.
		waiting := len(cc.pend) > 0 || len(cc.pings) > 0 || cc.closeSent
		if cc.reading || (!waiting && time.Since(cc.lastUsed) < bgIdle) {
			cc.mu.Unlock()
			t.Reset(bgIdle)
			continue
		}
		cc.reading = true
		cc.mu.Unlock()
		cc.readWhileWaiting()
		cc.releaseRole()
		t.Reset(bgIdle)
	}
}

// readWhileWaiting reads at least one frame, then goes on while calls or
// pings are pending or received octets wait.
func (cc *clientConn) readWhileWaiting() {
	for {
		err := cc.readOne()
		switch {
		case err == nil:
		case isTimeout(err):
			cc.st.SetReadDeadline(time.Time{}) // a caller's interrupt that came late
			continue
		default:
			return
		}
		buffered := cc.fr.buffered()
		cc.mu.Lock()
		more := cc.dead == nil && (len(cc.pend) > 0 || len(cc.pings) > 0 || cc.closeSent || buffered)
		cc.mu.Unlock()
		if !more {
			return
		}
	}
}

// readOne reads and dispatches one frame. A failure other than a timeout
// ends the association.
func (cc *clientConn) readOne() error {
	err := cc.dispatchNext()
	if err == nil || isTimeout(err) {
		return err
	}
	if !errors.Is(err, errEnded) {
		cc.fail(fmt.Errorf("%w: %w", ErrConnLost, err))
		cc.st.Reset()
	}
	return err
}

func (cc *clientConn) dispatchNext() error {
	raw, err := cc.fr.next()
	if err != nil {
		return err
	}
	m, err := DecodeMessage(raw)
	if err != nil {
		return err
	}
	if m.NextProto != NextProtoAITP {
		cc.cl.log.Debug("aitp: control message", "peer", cc.p, "code", firstByte(m.Payload))
		return nil
	}
	seg, err := DecodeSegment(m.Payload)
	if err != nil {
		return err
	}
	switch seg.Type {
	case TypeResponse, TypeStream:
		cancel, err := cc.onReply(&seg)
		if err != nil {
			return err
		}
		if cancel {
			cc.w.write(nil, &Segment{Type: TypeCancel, Association: cc.assoc, RequestID: seg.RequestID})
		}
		if seg.Type == TypeResponse && cc.checkDrained() {
			return errEnded
		}
	case TypeWindow:
		cc.mu.Lock()
		cc.window = max(int(seg.Window), 1)
		cc.grantLocked()
		cc.mu.Unlock()
	case TypePing:
		cc.w.write(nil, &Segment{Type: TypePong, Association: cc.assoc, RequestID: seg.RequestID})
	case TypePong:
		cc.mu.Lock()
		if ch := cc.pings[seg.RequestID]; ch != nil {
			delete(cc.pings, seg.RequestID)
			close(ch)
		}
		cc.mu.Unlock()
	case TypeClose:
		cc.cl.forget(cc)
		cc.mu.Lock()
		cc.closing, cc.closeRecv = true, true
		cc.mu.Unlock()
		if cc.checkDrained() {
			return errEnded
		}
	case TypeCloseAck:
		cc.mu.Lock()
		sent := cc.closeSent
		cc.mu.Unlock()
		if sent {
			cc.fail(fmt.Errorf("%w: association closed", ErrConnLost))
			cc.st.Close()
			return errEnded
		}
	case TypeAbort:
		cc.fail(ErrAborted)
		cc.st.Reset()
		return errEnded
	}
	return nil
}
