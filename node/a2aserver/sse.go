package a2aserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/adpnode/adpnode/node/a2awire"
)

// stream answers a streaming send of the task first (as start kept it) with Server-Sent Events (A2A 1.0
// Section 9.4.2): each event's data is one JSON-RPC response whose result
// is, in order, the task as it was started (submitted), the status
// update "working", an artifact update for each reply chunk, and the
// status update of its terminal state. Events are derived from the
// stored task, so a slow reader never holds up the call.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rpcID json.RawMessage, first task, enc encoder) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", a2awire.MediaSSE)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The call's own timeout bounds the stream; each write is bounded by
	// streamWriteTimeout, so that a client that stops reading ends it.
	send := func(result any) bool {
		b, err := json.Marshal(response{JSONRPC: "2.0", ID: idOrNull(rpcID), Result: result})
		if err != nil {
			return false
		}
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(enc.sendResult(first)) {
		return
	}
	last, sent := first.state, replyParts(&first)
	beat := time.NewTicker(s.cfg.heartbeat)
	defer beat.Stop()
	for {
		t, changed, err := s.store.get(first.id)
		if err != nil {
			return
		}
		if last == stateSubmitted && t.state != stateSubmitted {
			// The call has begun: say so before its first chunk, also
			// when it ended before this stream looked.
			w := t
			w.state, w.statusMsg, last = stateWorking, nil, stateWorking
			if !send(enc.statusEvent(&w)) {
				return
			}
		}
		if n := replyParts(&t); n > sent {
			a := t.artifacts[0]
			for i := sent; i < n; i++ {
				if !send(enc.artifactEvent(&t, a, a.parts[i:i+1], i > 0)) {
					return
				}
			}
			sent = n
		}
		if t.state != last {
			last = t.state
			if !send(enc.statusEvent(&t)) {
				return
			}
		}
		if last.terminal() {
			return
		}
		select {
		case <-changed:
		case <-beat.C:
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return // the client left; the task goes on
		}
	}
}

// replyParts counts the parts of t's reply artifact.
func replyParts(t *task) int {
	if len(t.artifacts) == 0 {
		return 0
	}
	return len(t.artifacts[0].parts)
}
