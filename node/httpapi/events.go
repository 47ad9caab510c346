package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Server-sent events limits (GET /v1/events).
const (
	// MaxEventSubscribers bounds the concurrent GET /v1/events streams; one
	// more is refused with 503.
	MaxEventSubscribers = 16
	// eventBuffer is each stream's buffer of pending events; a stream that
	// falls further behind gets a resync event instead of the lost ones.
	eventBuffer = 64
	// eventHeartbeat is the interval of the comment line that keeps idle
	// streams (and the proxies between) open and detects gone clients.
	eventHeartbeat = 15 * time.Second
	// eventWriteTimeout bounds one write to a stream's client.
	eventWriteTimeout = 10 * time.Second
	// eventRetryMS is the reconnection delay the stream asks browsers for.
	eventRetryMS = 2000
)

// streams is the shared state of the event streams of one handler: a cap
// on subscribers and a channel closed when the server shuts down, so that
// Shutdown need not wait for streams that never end by themselves.
type streams struct {
	sem       chan struct{}
	closing   chan struct{}
	closeOnce sync.Once
	heartbeat time.Duration
}

func newStreams(heartbeat time.Duration) *streams {
	return &streams{sem: make(chan struct{}, MaxEventSubscribers), closing: make(chan struct{}), heartbeat: heartbeat}
}

// close ends every stream (idempotent).
func (s *streams) close() { s.closeOnce.Do(func() { close(s.closing) }) }

// events answers GET /v1/events: a text/event-stream of the node's
// events, one JSON nodeapi.Event per "data:" line, with a comment line
// every heartbeat. It ends when the client goes, a write times out or the
// server shuts down.
func (a *api) events(w http.ResponseWriter, r *http.Request) {
	select {
	case a.streams.sem <- struct{}{}:
		defer func() { <-a.streams.sem }()
	default:
		writeAPIError(w, &Error{Status: http.StatusServiceUnavailable, Code: codeRateLimited, Message: fmt.Sprintf("at most %d event streams at a time", MaxEventSubscribers)})
		return
	}
	ch, cancel, err := a.n.Events(eventBuffer)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	defer cancel()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	write := func(s string) bool {
		rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		if _, err := w.Write([]byte(s)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !write(fmt.Sprintf("retry: %d\n: stream open\n\n", eventRetryMS)) {
		return
	}
	tick := time.NewTicker(a.streams.heartbeat)
	defer tick.Stop()
	for {
		var line string
		select {
		case <-r.Context().Done():
			return
		case <-a.streams.closing:
			return
		case <-tick.C:
			line = ": heartbeat\n\n"
		case ev, ok := <-ch:
			if !ok {
				return
			}
			b, err := json.Marshal(ev)
			if err != nil {
				return
			}
			line = "data: " + string(b) + "\n\n"
		}
		if !write(line) {
			return
		}
	}
}
