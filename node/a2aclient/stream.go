package a2aclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/adpnode/adpnode/node/a2awire"
)

// Stream calls tool like Send but asks for a stream of events
// (SendStreamingMessage over server-sent events, message/stream for 0.3)
// and hands fn one chunk per result as it arrives: each artifact update's
// parts, or a message's, or a completed task's result when no artifact
// came before it. Status updates carry no chunk; a task that ends failed,
// rejected, canceled or waiting for input ends the call with a
// *TaskError. A server that cannot stream (it answers "unsupported
// operation") is called with Send, and its result is the one chunk. An
// error from fn ends the call and is returned.
func (c *Client) Stream(ctx context.Context, ep Endpoint, tool string, args json.RawMessage, fn func(chunk json.RawMessage) error) error {
	u, err := checkURL(ep.URL, c.cfg.private)
	if err != nil {
		return err
	}
	legacy := ep.legacy()
	err = c.streamOnce(ctx, ep, u.String(), legacy, tool, args, fn)
	if !legacy && fallBack(err) {
		err = c.streamOnce(ctx, ep, u.String(), true, tool, args, fn)
	}
	var re *RemoteError
	if errors.As(err, &re) && re.Code == a2awire.CodeUnsupportedOperation {
		v, err := c.Send(ctx, ep, tool, args)
		if err != nil {
			return err
		}
		return fn(v)
	}
	return err
}

// streamOnce runs one streaming request. The errors that make Stream fall
// back (method not found, unsupported operation) come before any event,
// so a fallback never repeats a chunk.
func (c *Client) streamOnce(ctx context.Context, ep Endpoint, url string, legacy bool, tool string, args json.RawMessage, fn func(json.RawMessage) error) error {
	s := &streamState{fn: fn}
	ex, err := c.newExchange(ep, url, legacy, true, tool, args)
	if err != nil {
		return err
	}
	result, err := c.do(ctx, ex, s.event)
	if err != nil {
		return err
	}
	if result != nil { // a JSON answer to a stream request: one event
		if _, err := s.event(result); err != nil {
			return err
		}
	}
	if !s.done {
		return badReply("the stream ended before the task finished")
	}
	return nil
}

// streamState follows the events of one stream.
type streamState struct {
	fn      func(json.RawMessage) error
	emitted bool // a chunk went to fn
	done    bool // a final event arrived
}

// event handles the result of one event and reports whether the stream
// is done.
func (s *streamState) event(result json.RawMessage) (bool, error) {
	ev, err := decodeEvent(result)
	if err != nil {
		return false, err
	}
	switch {
	case ev.message != nil:
		v, err := partsValue(ev.message.Parts)
		if err != nil {
			return false, err
		}
		s.done = true
		return true, s.emit(v)
	case ev.artifact != nil:
		if ev.artifact.Artifact == nil {
			return false, badReply("an artifact update without artifact")
		}
		v, err := partsValue(ev.artifact.Artifact.Parts)
		if err != nil {
			return false, err
		}
		return false, s.emit(v)
	case ev.task != nil:
		st, err := ev.task.state()
		if err != nil {
			return false, err
		}
		return s.status(st, ev.task.Status.Message, false, func() (json.RawMessage, error) { return ev.task.value() })
	default:
		if ev.status.Status == nil {
			return false, badReply("a status update without status")
		}
		st, err := normalizeState(ev.status.Status.State)
		if err != nil {
			return false, err
		}
		m := ev.status.Status.Message
		return s.status(st, m, ev.status.Final, func() (json.RawMessage, error) {
			if m == nil {
				return json.RawMessage("null"), nil
			}
			return partsValue(m.Parts)
		})
	}
}

// status handles a task state: a terminal one ends the stream, with an
// error unless completed; a completed task that sent no artifact gives
// its value as the one chunk.
func (s *streamState) status(st string, m *message, final bool, value func() (json.RawMessage, error)) (bool, error) {
	if !terminal(st) {
		if final {
			return true, taskError(st, m)
		}
		return false, nil
	}
	s.done = true
	if st != a2awire.StateCompleted {
		return true, taskError(st, m)
	}
	if !s.emitted {
		v, err := value()
		if err != nil {
			return true, err
		}
		if string(v) != "null" {
			return true, s.emit(v)
		}
	}
	return true, nil
}

func (s *streamState) emit(v json.RawMessage) error {
	s.emitted = true
	return s.fn(v)
}

// readEvents reads a server-sent event stream: each event's data (its
// data lines joined by newlines) holds a result that unwrap takes out (a
// JSON-RPC response to the request, or the result itself), and the result
// goes to onEvent until it reports the stream done. An event is bounded by
// MaxEvent octets, the stream by the reply bound.
func (c *Client) readEvents(ctx context.Context, url string, body io.Reader, unwrap func([]byte) (json.RawMessage, error), onEvent func(json.RawMessage) (bool, error)) error {
	br := bufio.NewReaderSize(&limitedReader{r: body, left: c.cfg.maxReply}, 64<<10)
	var data bytes.Buffer
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil // streamOnce decides whether the stream ended early
			}
			return c.readError(ctx, url, err)
		}
		switch {
		case len(line) == 0: // end of an event
			if data.Len() == 0 {
				continue
			}
			result, err := unwrap(data.Bytes())
			data.Reset()
			if err != nil {
				return err
			}
			done, err := onEvent(result)
			if err != nil || done {
				return err
			}
		case line[0] == ':': // comment
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte(" "))
			if data.Len()+len(v)+1 > MaxEvent {
				return fmt.Errorf("%w: %w: an event of more than %d octets", ErrBadReply, ErrTooLarge, MaxEvent)
			}
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(v)
		}
	}
}

// readLine reads one line without its end (LF, CRLF), at most MaxEvent
// octets long.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, frag...)
		if len(line) > MaxEvent {
			return nil, fmt.Errorf("%w: %w: a line of more than %d octets", ErrBadReply, ErrTooLarge, MaxEvent)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// limitedReader fails with ErrTooLarge once more than left octets were
// read.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("%w: %w: a stream of more than the reply bound", ErrBadReply, ErrTooLarge)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, fmt.Errorf("%w: %w: a stream of more than the reply bound", ErrBadReply, ErrTooLarge)
	}
	return n, err
}
