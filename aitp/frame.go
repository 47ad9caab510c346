package aitp

import (
	"bufio"
	"io"
	"sync"
)

// writeBufSize is the buffered writer of a stream: one frame of a small
// call is one write on the stream.
const writeBufSize = 8 << 10

// frameWriter serialises frames onto one stream. Each frame is written
// whole and flushed before the lock is released. A write error is sticky.
type frameWriter struct {
	mu  sync.Mutex
	bw  *bufio.Writer
	hdr [frameHeaderMax]byte
	err error
}

func newFrameWriter(w io.Writer) *frameWriter {
	return &frameWriter{bw: bufio.NewWriterSize(w, writeBufSize)}
}

// write sends one frame: the AIP header with opts, the segment header,
// the method and the body.
func (w *frameWriter) write(opts []byte, s *Segment) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	hdr, err := appendFrameHeader(w.hdr[:0], opts, s)
	if err != nil {
		return err
	}
	w.bw.Write(hdr)
	w.bw.Write(s.Method)
	w.bw.Write(s.Body)
	if err := w.bw.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// writeControl sends an AIP control message quoting the offending message.
func (w *frameWriter) writeControl(code uint8, pointer uint16, quote []byte) error {
	if len(quote) > MaxControlQuote {
		quote = quote[:MaxControlQuote]
	}
	payload := make([]byte, 0, ControlHeaderSize+len(quote))
	payload = append(payload, code, 0, byte(pointer>>8), byte(pointer))
	payload = append(payload, quote...)
	m := Message{Version: Version, TTL: DefaultTTL, NextProto: NextProtoControl, Payload: payload}
	b, err := AppendMessage(nil, &m)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.bw.Write(b)
	if err := w.bw.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// fail makes every later write return err.
func (w *frameWriter) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// bufPool holds MaxMessageSize read buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, MaxMessageSize); return &b }}

// readBufSize is the buffered reader of a stream.
const readBufSize = 8 << 10

// streamMemory is what a stream reserves from its resource scope: the
// message buffer and the buffered reader and writer.
const streamMemory = MaxMessageSize + readBufSize + writeBufSize

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
