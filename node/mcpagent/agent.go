package mcpagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// clientName is the clientInfo.name the agent sends in initialize.
const clientName = "adpnode"

// Agent is an MCP server behind a node (see the package doc for the
// lifecycle). Safe for concurrent use.
type Agent struct {
	cfg    config
	client *mcp.Client
	relist chan struct{} // a tools/list_changed arrived; capacity 1

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	tokens atomic.Uint64

	mu       sync.Mutex
	sess     *mcp.ClientSession
	init     *mcp.InitializeResult
	pid      int
	stderr   *tail // of the running command
	tools    map[string]*tool
	list     []adp.Tool
	listJSON []byte // the last tools/list result applied, to see changes
	sinks    map[string]chan *mcp.ProgressNotificationParams
	state    string
	restarts int
	lastErr  string
	started  bool
	closed   bool

	closeOnce sync.Once
}

// tool is one tool of the server with its resolved input schema (nil when
// the schema could not be resolved: the server then checks alone).
type tool struct {
	name   string
	schema *jsonschema.Resolved
}

// Status is the agent's state as reported in the node's /v1/status.
type Status = nodeapi.AgentStatus

// New checks the options and builds an agent; Start connects it.
func New(opts ...Option) (*Agent, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	n := 0
	for _, set := range []bool{len(cfg.command) > 0, cfg.url != "", cfg.transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, ErrNoServer
	}
	if len(cfg.command) > 0 && cfg.command[0] == "" {
		return nil, fmt.Errorf("%w: empty program", ErrBadCommand)
	}
	cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	a := &Agent{
		cfg: cfg, ctx: ctx, cancel: cancel,
		relist: make(chan struct{}, 1),
		tools:  map[string]*tool{},
		sinks:  map[string]chan *mcp.ProgressNotificationParams{},
		state:  StateStarting,
	}
	a.client = mcp.NewClient(&mcp.Implementation{Name: clientName}, &mcp.ClientOptions{
		Logger: cfg.log,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case a.relist <- struct{}{}:
			default: // a re-list is already due
			}
		},
		ProgressNotificationHandler: a.onProgress,
	})
	return a, nil
}

// Start connects to the server, lists its tools (calling OnToolsChanged)
// and starts the supervisor. A failure to connect is returned; the agent
// must still be closed.
func (a *Agent) Start(ctx context.Context) error {
	a.mu.Lock()
	switch {
	case a.closed:
		a.mu.Unlock()
		return ErrClosed
	case a.started:
		a.mu.Unlock()
		return ErrStarted
	}
	a.started = true
	a.mu.Unlock()
	sess, err := a.connect(ctx)
	if err != nil {
		a.setDown(err, false)
		return fmt.Errorf("mcpagent: connect: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed { // Close ran meanwhile and did not wait for a supervisor
		sess.Close()
		return ErrClosed
	}
	a.wg.Add(1)
	go a.supervise(sess)
	return nil
}

// Close stops the supervisor, ends the session and waits. Idempotent.
func (a *Agent) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.state = StateClosed
		a.mu.Unlock()
		a.cancel()
		a.wg.Wait()
	})
	return nil
}

// Tools returns the server's tools as last listed.
func (a *Agent) Tools() []adp.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]adp.Tool(nil), a.list...)
}

// Status returns the agent's state.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := Status{State: a.state, Restarts: a.restarts, LastError: a.lastErr, PID: a.pid, Tools: len(a.list)}
	switch {
	case len(a.cfg.command) > 0:
		st.Transport = "stdio"
	case a.cfg.url != "":
		st.Transport = "http"
	default:
		st.Transport = "custom"
	}
	if a.init != nil {
		st.Protocol = a.init.ProtocolVersion
		if si := a.init.ServerInfo; si != nil {
			st.Server = strings.TrimSuffix(si.Name+"/"+si.Version, "/")
		}
	}
	return st
}

// supervise serves sess until it ends, then reconnects with backoff,
// until Close.
func (a *Agent) supervise(sess *mcp.ClientSession) {
	defer a.wg.Done()
	backoff := a.cfg.minBack
	for {
		began := time.Now()
		err := a.serve(sess)
		if a.ctx.Err() != nil {
			return
		}
		if time.Since(began) >= a.cfg.stable {
			backoff = a.cfg.minBack
		}
		a.setDown(err, true)
		a.cfg.log.Warn("MCP server session ended; restarting", "err", err, "backoff", backoff)
		for {
			t := time.NewTimer(backoff)
			select {
			case <-a.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			backoff = min(2*backoff, a.cfg.maxBack)
			if sess, err = a.connect(a.ctx); err == nil {
				break
			}
			if a.ctx.Err() != nil {
				return
			}
			a.setDown(err, true)
			a.cfg.log.Warn("MCP server restart failed", "err", err, "backoff", backoff)
		}
	}
}

// serve re-lists the tools when the server says they changed, until the
// session ends (its error, or one saying the server closed it) or Close.
func (a *Agent) serve(sess *mcp.ClientSession) error {
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }() // returns once the session is closed, by either side
	defer sess.Close()
	for {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("the server closed the session")
			}
			a.mu.Lock()
			stderr := a.stderr
			a.mu.Unlock()
			return stderr.annotate(err)
		case <-a.ctx.Done():
			sess.Close()
			<-done
			return a.ctx.Err()
		case <-a.relist:
			ctx, cancel := context.WithTimeout(a.ctx, connectTimeout)
			list, err := listTools(ctx, sess)
			cancel()
			if err != nil {
				a.cfg.log.Warn("MCP tools/list after list_changed", "err", err)
				continue
			}
			a.applyTools(list)
		}
	}
}

// connect starts a session (and the command), lists the tools and makes
// the session the current one.
func (a *Agent) connect(ctx context.Context) (*mcp.ClientSession, error) {
	t, cmd, stderr := a.newTransport()
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	sess, err := a.client.Connect(ctx, t, nil)
	if err != nil {
		return nil, stderr.annotate(err)
	}
	list, err := listTools(ctx, sess)
	if err != nil {
		sess.Close()
		return nil, stderr.annotate(fmt.Errorf("tools/list: %w", err))
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		sess.Close()
		return nil, ErrClosed
	}
	a.sess, a.init, a.state, a.pid, a.stderr = sess, sess.InitializeResult(), StateRunning, 0, stderr
	if cmd != nil && cmd.Process != nil {
		a.pid = cmd.Process.Pid
	}
	a.mu.Unlock()
	a.applyTools(list)
	return sess, nil
}

// setDown records a session that ended or a connect that failed.
func (a *Agent) setDown(err error, restarting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sess, a.pid, a.stderr = nil, 0, nil
	if err != nil {
		a.lastErr = err.Error()
	}
	if restarting && !a.closed {
		a.state = StateRestarting
		a.restarts++
	}
}

func (a *Agent) newTransport() (mcp.Transport, *exec.Cmd, *tail) {
	switch {
	case len(a.cfg.command) > 0:
		cmd := exec.Command(a.cfg.command[0], a.cfg.command[1:]...)
		stderr := &tail{}
		cmd.Stderr = stderr
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateWait}, cmd, stderr
	case a.cfg.url != "":
		return &mcp.StreamableClientTransport{Endpoint: a.cfg.url}, nil, nil
	default:
		return a.cfg.transport(), nil, nil
	}
}

// listTools reads every page of tools/list.
func listTools(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, error) {
	list := []*mcp.Tool{}
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	return list, nil
}

// applyTools makes list the current tools when it differs from the last
// one, and tells OnToolsChanged.
func (a *Agent) applyTools(list []*mcp.Tool) {
	raw, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		a.cfg.log.Warn("MCP tool list", "err", err)
		return
	}
	a.mu.Lock()
	same := bytes.Equal(raw, a.listJSON)
	a.mu.Unlock()
	if same {
		return
	}
	tools, ext, err := ToolsFromMCP(raw)
	if err != nil {
		a.cfg.log.Warn("MCP tool list does not convert to ADP tools; keeping the previous list", "err", err)
		return
	}
	byName := make(map[string]*tool, len(tools))
	for _, t := range tools {
		byName[t.Name] = &tool{name: t.Name, schema: resolveSchema(t.InputSchema)}
	}
	a.mu.Lock()
	a.tools, a.list, a.listJSON = byName, tools, raw
	a.mu.Unlock()
	if a.cfg.onTools != nil {
		a.cfg.onTools(append([]adp.Tool(nil), tools...), ext)
	}
}

// ToolsFromMCP converts an MCP tools/list result into ADP tools through
// the Appendix A.2 bridge, and returns the bridge's extensions["mcp"]
// member (what ADP tools do not carry: titles, annotations, _meta).
func ToolsFromMCP(raw []byte) ([]adp.Tool, json.RawMessage, error) {
	c, err := bridge.FromMCP(raw)
	if err != nil {
		return nil, nil, err
	}
	return c.Tools, c.Extensions[bridge.NamespaceMCP], nil
}

// resolveSchema resolves an input schema for checking arguments; nil when
// there is none or it does not resolve (then the server checks alone).
func resolveSchema(raw json.RawMessage) *jsonschema.Resolved {
	if len(raw) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return r
}

// tail keeps the end of a command's stderr, for the last error. Safe for
// concurrent use (the command writes while a failure reads).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

// annotate adds the stderr tail to err.
func (t *tail) annotate(err error) error {
	if t == nil {
		return err
	}
	t.mu.Lock()
	s := strings.TrimSpace(string(t.buf))
	t.mu.Unlock()
	if s == "" {
		return err
	}
	return fmt.Errorf("%w (stderr: %s)", err, s)
}
