package toolserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/invoke"
)

// MaxLocalReply bounds a buffered reply of Call, as the AITP server
// bounds the replies it sends.
const MaxLocalReply = aitp.DefaultMaxResponseBody

// Agent serves the card's tools the node does not serve itself: the
// agent's HTTP server (node/httpagent) or an MCP server (node/mcpagent).
type Agent interface {
	Call(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error
}

// Config is what a Tools serves with. Server, Card and Served are
// required.
type Config struct {
	Server *aitp.Server
	// Card returns the node's own card now.
	Card func() *adp.Card
	// Demo serves the demo agent's tools (node/demoagent).
	Demo bool
	// Agent serves the other tools; nil when there is none.
	Agent Agent
	// Served counts the served calls by method and status.
	Served *prometheus.CounterVec
	// Self is the caller of an in-process Call (the node's own peer).
	Self peer.ID
	Log  *slog.Logger
}

// Tools serves the tools of a node's card.
type Tools struct {
	cfg Config

	mu         sync.Mutex
	registered map[string]bool // tool methods registered on the server
}

// New returns a Tools that has registered nothing yet.
func New(cfg Config) *Tools {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Tools{cfg: cfg, registered: make(map[string]bool)}
}

// IsADPMethod reports whether m is one of the ADP methods, which no tool
// may shadow.
func IsADPMethod(m string) bool {
	return m == service.MethodDescribe || m == service.MethodAdvertise || m == service.MethodDiscover
}

// Register registers a handler for every tool of c not yet registered.
func (t *Tools) Register(c *adp.Card) {
	t.mu.Lock()
	var fresh []string
	for _, tool := range c.Tools {
		if !aitp.ValidMethod(tool.Name) {
			t.cfg.Log.Warn("tool name cannot be an AITP method (spaces or control characters); not served", "method", tool.Name)
			continue
		}
		if !t.registered[tool.Name] && !IsADPMethod(tool.Name) {
			t.registered[tool.Name] = true
			fresh = append(fresh, tool.Name)
		}
	}
	t.mu.Unlock()
	for _, name := range fresh {
		t.cfg.Server.HandleFunc(name, t.ServeAITP)
	}
}

// onCard reports whether the current card lists tool.
func (t *Tools) onCard(tool string) bool {
	return slices.ContainsFunc(t.cfg.Card().Tools, func(x adp.Tool) bool { return x.Name == tool })
}

// ServeAITP answers a tool call from another agent: the demo agent or
// the agent serves it; a tool with no agent behind it, or one no longer
// on the card, answers NOT_FOUND. A handler's panic goes on to the caller
// (the AITP server, or Call, answers it ERROR) and is counted as ERROR.
func (t *Tools) ServeAITP(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) (err error) {
	returned := false
	defer func() {
		st := aitp.StatusOK
		switch {
		case !returned:
			st = aitp.StatusError // panicking
		case err != nil:
			st = aitp.StatusError
			if s, ok := aitp.StatusOf(err); ok {
				st = s
			}
		}
		// r.Method has a handler registered: a closed set.
		t.cfg.Served.WithLabelValues(r.Method, st.Label()).Inc()
	}()
	err = t.dispatch(ctx, w, r)
	returned = true
	return err
}

// dispatch hands a call to whoever serves its tool.
func (t *Tools) dispatch(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	switch {
	case !t.onCard(r.Method):
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool %q on this agent's card", r.Method)
	case t.cfg.Demo && demoagent.Serves(r.Method):
		return demoagent.Call(ctx, w, r)
	case t.cfg.Agent != nil:
		return t.cfg.Agent.Call(ctx, w, r, adp.AgentID(r.Remote))
	default:
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no agent serves tool %q", r.Method)
	}
}

// Call calls tool with args and hands the reply to fn: whole, or chunk
// by chunk when stream is set and the agent streams. The call is the
// AITP request a peer would send (the caller is Self), served in-process
// by ServeAITP. Failures are *aitp.Error; a panic of the handler is one
// (StatusError) and is logged.
func (t *Tools) Call(ctx context.Context, tool string, args []byte, stream bool, fn func(chunk json.RawMessage) error) (err error) {
	// Only a tool on the card reaches ServeAITP, whose metrics are
	// labelled by method: the label set stays the card's tools.
	if !aitp.ValidMethod(tool) || IsADPMethod(tool) || !t.onCard(tool) {
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool %q on this agent's card", tool)
	}
	dl, _ := ctx.Deadline()
	w := &localReply{stream: stream, fn: fn}
	defer func() {
		if p := recover(); p != nil {
			t.cfg.Log.Error("tool handler panic", "method", tool, "panic", p, "stack", string(debug.Stack()))
			err = aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "handler failed")
		}
	}()
	if err := t.ServeAITP(ctx, w, &aitp.Request{Remote: t.cfg.Self, Method: tool, Body: args, StreamReply: stream, Deadline: dl}); err != nil {
		return err
	}
	return w.finish()
}

// localReply is the aitp.ResponseWriter of Call: each Write goes to fn
// at once when streaming, else into one bounded reply.
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
	if len(w.buf)+len(p) > MaxLocalReply {
		return 0, aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reply larger than %d bytes", MaxLocalReply)
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
