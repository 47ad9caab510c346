package mcpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/aitp"
)

// progressQueue bounds the progress notifications of one call waiting to
// be written; past it they are dropped (the result still comes).
const progressQueue = 64

// progressGrace and progressDrain bound the wait for progress
// notifications that trail the result (see drainProgress).
const (
	progressGrace = 20 * time.Millisecond
	progressDrain = 200 * time.Millisecond
)

// progressChunk is one streamed progress chunk.
type progressChunk struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Call forwards the AITP call r to the server's tool r.Method as
// tools/call (see the package doc for the reply and the statuses).
// caller is the calling agent's id, sent in _meta.
func (a *Agent) Call(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error {
	sess, t, err := a.lookup(r.Method)
	if err != nil {
		return err
	}
	args, err := checkArgs(t, r.Body)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.callLimit)
		defer cancel()
	}
	params := &mcp.CallToolParams{Name: r.Method, Arguments: args, Meta: mcp.Meta{}}
	if caller != "" {
		params.Meta[MetaCaller] = caller
	}
	var progress chan *mcp.ProgressNotificationParams
	if r.StreamReply {
		token := fmt.Sprintf("adp-%d", a.tokens.Add(1))
		params.SetProgressToken(token)
		progress = make(chan *mcp.ProgressNotificationParams, progressQueue)
		a.mu.Lock()
		a.sinks[token] = progress
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			delete(a.sinks, token)
			a.mu.Unlock()
		}()
	}
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() { // ends with the call: ctx bounds it
		res, err := sess.CallTool(ctx, params)
		done <- outcome{res, err}
	}()
	var out outcome
	for wait := true; wait; {
		select {
		case p := <-progress:
			if err := writeProgress(w, p); err != nil {
				return err
			}
		case out = <-done:
			wait = false
		}
	}
	if progress != nil {
		if err := drainProgress(w, progress); err != nil {
			return err
		}
	}
	if out.err != nil {
		return a.callError(ctx, r.Method, out.err)
	}
	if out.res.IsError {
		return toolError(r.Method, out.res)
	}
	body, err := json.Marshal(out.res)
	if err != nil {
		return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "encoding the tool result: %v", err)
	}
	_, err = w.Write(body)
	return err
}

// drainProgress writes the progress notifications that the SDK still
// delivers after the result: it hands notifications to a handler
// goroutine but the result to the caller at once, so a notification sent
// before the result may come after it. It waits until none came for
// progressGrace, at most progressDrain.
func drainProgress(w aitp.ResponseWriter, progress <-chan *mcp.ProgressNotificationParams) error {
	limit := time.NewTimer(progressDrain)
	defer limit.Stop()
	quiet := time.NewTimer(progressGrace)
	defer quiet.Stop()
	for {
		select {
		case p := <-progress:
			if err := writeProgress(w, p); err != nil {
				return err
			}
			quiet.Reset(progressGrace)
		case <-quiet.C:
			return nil
		case <-limit.C:
			return nil
		}
	}
}

func writeProgress(w aitp.ResponseWriter, p *mcp.ProgressNotificationParams) error {
	b, err := json.Marshal(progressChunk{Progress: p.Progress, Total: p.Total, Message: p.Message})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// onProgress routes a progress notification to the call that asked for it.
func (a *Agent) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	a.mu.Lock()
	ch := a.sinks[fmt.Sprint(req.Params.ProgressToken)]
	a.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- req.Params:
	default:
		a.cfg.log.Debug("progress notification dropped: caller is slow")
	}
}

// lookup returns the current session and the tool, or the AITP error a
// call gets when there is none.
func (a *Agent) lookup(name string) (*mcp.ClientSession, *tool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sess == nil {
		msg := "MCP server is " + a.state
		if a.restarts > 0 {
			msg += fmt.Sprintf(" (restart %d)", a.restarts)
		}
		if a.lastErr != "" {
			msg += ": " + truncate(a.lastErr, maxMessage)
		}
		return nil, nil, aitp.Errorf(aitp.StatusBusy, CodeUnavailable, "", "%s", msg)
	}
	t := a.tools[name]
	if t == nil {
		return nil, nil, aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "the MCP server has no tool %q", name)
	}
	return a.sess, t, nil
}

// checkArgs checks that body is a JSON object that satisfies the tool's
// input schema, and returns it as the tools/call arguments.
func checkArgs(t *tool, body []byte) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil || v == nil {
		return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "arguments of %q must be a JSON object", t.name)
	}
	if t.schema != nil {
		if err := t.schema.Validate(v); err != nil {
			return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "arguments of %q: %v", t.name, err)
		}
	}
	return json.RawMessage(body), nil
}

// callError maps a failed tools/call to an AITP error.
func (a *Agent) callError(ctx context.Context, name string, err error) error {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		msg := truncate(we.Message, maxMessage)
		switch {
		case we.Code == jsonrpc.CodeMethodNotFound,
			we.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(strings.ToLower(we.Message), "unknown tool"):
			return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "MCP server: %s", msg)
		case we.Code == jsonrpc.CodeInvalidParams:
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "MCP server: %s", msg)
		default:
			return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "MCP server error %d: %s", we.Code, msg)
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return aitp.Errorf(aitp.StatusTimeout, aitp.CodeTimeout, "", "MCP tool %q did not answer in time", name)
	case ctx.Err() != nil:
		return ctx.Err()
	default: // the connection failed or closed under the call
		return aitp.Errorf(aitp.StatusBusy, CodeUnavailable, "", "MCP server unavailable: %s", truncate(err.Error(), maxMessage))
	}
}

// toolError maps a result with isError: true. The go-sdk server reports a
// schema failure this way ("validating \"arguments\": ..."): that is
// INVALID_REQUEST like a JSON-RPC invalid params.
func toolError(name string, res *mcp.CallToolResult) error {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			texts = append(texts, t.Text)
		}
	}
	msg := truncate(strings.Join(texts, "\n"), maxMessage)
	if msg == "" {
		msg = "tool " + name + " failed"
	}
	if strings.HasPrefix(msg, `validating "arguments"`) {
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "%s", msg)
	}
	return aitp.Errorf(aitp.StatusError, CodeToolError, "", "%s", msg)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
