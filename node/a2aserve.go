package node

import (
	"context"
	"encoding/json"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/invoke"
)

// maxLocalReply bounds a buffered reply of CallTool, as the AITP server
// bounds the replies it sends.
const maxLocalReply = aitp.DefaultMaxResponseBody

// CallTool calls tool of the node's own agent with args and hands the
// reply to fn: whole, or chunk by chunk when stream is set and the agent
// streams. The call is the AITP request a peer would send (the caller is
// the node's own peer), served in-process by the handler that answers
// peers, so the demo agent, the agent's HTTP server or its MCP server
// answers it as it answers them. Failures are *aitp.Error. It is the
// a2aserver.Agent the node's A2A server calls.
func (n *Node) CallTool(ctx context.Context, tool string, args []byte, stream bool, fn func(chunk json.RawMessage) error) (err error) {
	// Only a tool on the card reaches serveTool, whose metrics are
	// labelled by method: the label set stays the card's tools.
	if !aitp.ValidMethod(tool) || isADPMethod(tool) || !slices.ContainsFunc(n.Card().Tools, func(t adp.Tool) bool { return t.Name == tool }) {
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool %q on this agent's card", tool)
	}
	dl, _ := ctx.Deadline()
	w := &localReply{stream: stream, fn: fn}
	defer func() {
		if p := recover(); p != nil {
			n.log.Error("tool handler panic", "method", tool, "panic", p, "stack", string(debug.Stack()))
			err = aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "handler failed")
		}
	}()
	if err := n.serveTool(ctx, w, &aitp.Request{Remote: n.self, Method: tool, Body: args, StreamReply: stream, Deadline: dl}); err != nil {
		return err
	}
	return w.finish()
}

// localReply is the aitp.ResponseWriter of CallTool: each Write goes to
// fn at once when streaming, else into one bounded reply.
type localReply struct {
	stream bool
	fn     func(json.RawMessage) error
	mu     sync.Mutex
	buf    []byte
}

func (w *localReply) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stream {
		if err := w.fn(invoke.AsJSON(append([]byte(nil), p...))); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if len(w.buf)+len(p) > maxLocalReply {
		return 0, aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reply larger than %d bytes", maxLocalReply)
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// finish hands a buffered reply to fn.
func (w *localReply) finish() error {
	if w.stream {
		return nil
	}
	return w.fn(invoke.AsJSON(w.buf))
}
