package a2aserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/ratelimit"
	"github.com/adpnode/adpnode/node/a2awire"
)

// Agent is what a Server fronts: the agent's card, whose tools are the
// A2A skills, and the call of one of its tools. The node implements it.
type Agent interface {
	// Card is the agent's current signed card.
	Card() *adp.Card
	// CallTool carries one call of the agent's tool with JSON arguments
	// as an AITP call. With stream set the agent may answer in chunks;
	// each chunk, or the whole reply, goes to fn in order. An error from
	// fn ends the call. Failures are *aitp.Error where the agent or the
	// invocation layer answered one.
	CallTool(ctx context.Context, tool string, args []byte, stream bool, fn func(chunk json.RawMessage) error) error
}

// Server is an A2A JSON-RPC server in front of one agent; it is an
// http.Handler to mount at the URL the agent's A2A card names (see
// WithJSONRPC). It is safe for concurrent use. Close cancels the calls
// in flight and waits for them.
type Server struct {
	agent   Agent
	cfg     config
	store   *store
	running chan struct{} // one token per call in flight

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	public int                // calls in flight from PublicHandler
	source map[netip.Addr]int // of those, by source (sourceOf; none at 0)
	wg     sync.WaitGroup
}

// New returns a Server in front of agent.
func New(agent Agent, opts ...Option) *Server {
	cfg := newConfig(opts)
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		agent:   agent,
		cfg:     cfg,
		store:   newStore(cfg.maxTasks, cfg.maxTaskBytes, cfg.taskTTL, cfg.now),
		running: make(chan struct{}, cfg.maxRunning),
		source:  map[netip.Addr]int{},
		ctx:     ctx,
		cancel:  cancel,
	}
}

// Handler returns s as an http.Handler, to mount on a mux.
func (s *Server) Handler() http.Handler { return s }

// PublicHandler returns the handler to mount where anyone can reach it:
// the same server and tasks, but its calls in flight are bounded apart
// (WithPublicRunning), in all and per source (an IPv4 address, an IPv6
// /64: the addresses one host is given), so that the strangers of a
// public server cannot take every call from the local API, and one of
// them not every public one.
func (s *Server) PublicHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		src := sourceOf(ratelimit.SourceIP(r))
		s.serve(w, r, &src)
	})
}

// sourceOf is the source a public call is charged to: addr itself, or
// for IPv6 the first address of its /64.
func sourceOf(addr netip.Addr) netip.Addr {
	if !addr.Is6() {
		return addr
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return addr
	}
	return p.Addr()
}

// Close cancels every call in flight (their tasks end canceled), ends the
// open event streams and waits for the calls. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// method describes one JSON-RPC method.
type method struct {
	version string
	op      int    // opSend, opGet or opCancel
	stream  bool   // answers with an event stream
	other   string // the same method in the other version
}

const (
	opSend = iota
	opGet
	opCancel
)

var methods = map[string]method{
	a2awire.MethodSendMessage:          {a2awire.Version10, opSend, false, a2awire.MethodSend03},
	a2awire.MethodSendStreamingMessage: {a2awire.Version10, opSend, true, a2awire.MethodStream03},
	a2awire.MethodGetTask:              {a2awire.Version10, opGet, false, a2awire.MethodGet03},
	a2awire.MethodCancelTask:           {a2awire.Version10, opCancel, false, a2awire.MethodCancel03},
	a2awire.MethodSend03:               {a2awire.Version03, opSend, false, a2awire.MethodSendMessage},
	a2awire.MethodStream03:             {a2awire.Version03, opSend, true, a2awire.MethodSendStreamingMessage},
	a2awire.MethodGet03:                {a2awire.Version03, opGet, false, a2awire.MethodGetTask},
	a2awire.MethodCancel03:             {a2awire.Version03, opCancel, false, a2awire.MethodCancelTask},
}

// ServeHTTP answers one JSON-RPC request (A2A 1.0 Section 9; 0.3
// Section 7): a POST of one request object, answered by one response
// object or, for the streaming methods, an event stream of responses.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r, nil) }

// serve is ServeHTTP; src is the source address of a request that came
// through PublicHandler, nil for one through Handler.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, src *netip.Addr) {
	asked, known := parseVersion(r.Header.Get(a2awire.VersionHeader))
	version := a2awire.Version10
	if known && asked != "" {
		version = asked
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, nil, version, rpcErr(a2awire.CodeInvalidRequest, "", "use POST"))
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || (mt != a2awire.MediaJSON && mt != "application/a2a+json") {
		writeError(w, http.StatusUnsupportedMediaType, nil, version, rpcErr(a2awire.CodeInvalidRequest, "", "Content-Type must be application/json"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, nil, version, rpcErr(a2awire.CodeInvalidRequest, "", "request body larger than %d bytes", MaxRequestBody))
			return
		}
		writeError(w, http.StatusBadRequest, nil, version, rpcErr(a2awire.CodeParseError, "", "reading the body: %v", err))
		return
	}
	req, id, rerr := decodeRequest(body)
	if rerr != nil {
		writeError(w, http.StatusOK, id, version, rerr)
		return
	}
	m, ok := methods[req.method]
	switch {
	case !known:
		writeError(w, http.StatusOK, id, version, rpcErr(a2awire.CodeVersionNotSupported, "", "A2A-Version %q is not supported; this server speaks %s and %s", r.Header.Get(a2awire.VersionHeader), a2awire.Version10, a2awire.Version03))
		return
	case !ok:
		writeError(w, http.StatusOK, id, version, rpcErr(a2awire.CodeMethodNotFound, "/method", "no method %q; the methods are %s, %s, %s, %s (A2A %s) and %s, %s, %s, %s (A2A %s)",
			truncate(req.method, 64), a2awire.MethodSendMessage, a2awire.MethodSendStreamingMessage, a2awire.MethodGetTask, a2awire.MethodCancelTask, a2awire.Version10,
			a2awire.MethodSend03, a2awire.MethodStream03, a2awire.MethodGet03, a2awire.MethodCancel03, a2awire.Version03))
		return
	case asked != "" && asked != m.version:
		writeError(w, http.StatusOK, id, asked, rpcErr(a2awire.CodeMethodNotFound, "/method", "%s is an A2A %s method; in A2A %s it is %s", req.method, m.version, asked, m.other))
		return
	}
	w.Header().Set(a2awire.VersionHeader, m.version)
	enc := encoder{version: m.version}
	switch m.op {
	case opSend:
		s.send(w, r, req, m, enc, src)
	case opGet:
		s.getTask(w, req, enc)
	case opCancel:
		s.cancelTask(w, req, enc)
	}
}

// parseVersion reads an A2A-Version value: "" (none sent), or a
// supported major.minor (a patch number is ignored). known is false for
// any other value.
func parseVersion(h string) (v string, known bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return "", true
	}
	parts := strings.SplitN(h, ".", 3)
	if len(parts) < 2 {
		return "", false
	}
	v = parts[0] + "." + parts[1]
	return v, v == a2awire.Version10 || v == a2awire.Version03
}

// send starts a task for the message and answers when it has finished
// (or at once when asked), or streams its updates.
func (s *Server) send(w http.ResponseWriter, r *http.Request, req *request, m method, enc encoder, src *netip.Addr) {
	sr, rerr := checkSend(req.params, m.version)
	if rerr == nil {
		rerr = s.checkFollowUp(sr.msg.taskID)
	}
	var c call
	if rerr == nil {
		c, rerr = route(s.agent.Card(), &sr.msg, sr.metadata)
	}
	if rerr != nil {
		writeError(w, http.StatusOK, req.id, m.version, rerr)
		return
	}
	first, err := s.start(c, sr.msg, m.stream, src)
	if err != nil {
		writeError(w, http.StatusOK, req.id, m.version, errorOf(err, ""))
		return
	}
	if m.stream {
		s.stream(w, r, req.id, first, enc)
		return
	}
	id := first.id
	if !sr.immediately {
		// The answer waits for the call: a server's write timeout (the
		// public one's is 30 s) must not cut it off before.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.callTimeout + streamWriteTimeout))
		done, err := s.store.doneOf(id)
		if err == nil {
			select {
			case <-done:
			case <-r.Context().Done():
				return // the client left; the task goes on
			}
		}
	}
	t, _, err := s.store.get(id)
	if err != nil {
		writeError(w, http.StatusOK, req.id, m.version, errorOf(err, ""))
		return
	}
	writeResult(w, req.id, enc.sendResult(t.withHistory(sr.history)))
}

// checkFollowUp refuses a message that continues a task: every task here
// is one tool call, answered once.
func (s *Server) checkFollowUp(taskID string) *Error {
	if taskID == "" {
		return nil
	}
	t, _, err := s.store.get(taskID)
	switch {
	case err != nil:
		return errorOf(err, "/params/message/taskId")
	case t.state.terminal():
		return rpcErr(a2awire.CodeUnsupportedOperation, "/params/message/taskId", "task %s has finished; send a new message without taskId", taskID)
	}
	return rpcErr(a2awire.CodeUnsupportedOperation, "/params/message/taskId", "task %s is one tool call and takes no further messages", taskID)
}

// start keeps a new task for msg, runs its call in the background and
// returns the task as kept (submitted). A call from src (nil: the local
// API) is charged to the public bounds as well.
func (s *Server) start(c call, msg message, stream bool, src *netip.Addr) (task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return task{}, ErrClosed
	}
	if src != nil && (s.public >= s.cfg.maxPublic || s.source[*src] >= s.cfg.perSource) {
		return task{}, ErrBusy
	}
	select {
	case s.running <- struct{}{}:
	default:
		return task{}, ErrBusy
	}
	s.charge(src, 1)
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.callTimeout)
	msg.taskID = newID()
	if msg.contextID == "" {
		msg.contextID = newID()
	}
	t := task{id: msg.taskID, contextID: msg.contextID, state: stateSubmitted, history: []message{msg}}
	if err := s.store.add(&t, cancel); err != nil {
		cancel()
		s.charge(src, -1)
		<-s.running
		return task{}, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			s.charge(src, -1)
			s.mu.Unlock()
			<-s.running
		}()
		defer cancel()
		s.run(ctx, t.id, t.contextID, c, stream)
	}()
	return t, nil
}

// charge counts d more calls in flight from src (nil: none to count).
// The caller holds s.mu.
func (s *Server) charge(src *netip.Addr, d int) {
	if src == nil {
		return
	}
	s.public += d
	if s.source[*src] += d; s.source[*src] <= 0 {
		delete(s.source, *src)
	}
}

// run makes the call of task id: working, then one artifact part per
// reply chunk, then completed, failed or (after CancelTask or Close)
// canceled.
func (s *Server) run(ctx context.Context, id, contextID string, c call, stream bool) {
	if s.store.setState(id, stateWorking, nil) != nil {
		return // canceled before it began
	}
	size := 0
	err := s.agent.CallTool(ctx, c.tool, c.args, stream, func(chunk json.RawMessage) error {
		p := replyPart(chunk)
		if size += p.length; size > maxReplyBytes {
			return aitp.Errorf(aitp.StatusError, aitp.CodeInternal, "", "reply larger than %d bytes", maxReplyBytes)
		}
		if err := s.store.appendReply(id, p); errors.Is(err, ErrBusy) {
			return aitp.Errorf(aitp.StatusBusy, aitp.CodeBusy, "", "no room for the reply in the task store")
		} else if err != nil {
			return err
		}
		return nil
	})
	switch {
	case err == nil:
		s.store.setState(id, stateCompleted, nil)
	case s.ctx.Err() != nil:
		s.store.setState(id, stateCanceled, s.agentMessage(id, contextID, "the server is shutting down"))
	default:
		s.store.setState(id, stateFailed, s.agentMessage(id, contextID, s.failure(c.tool, err)))
	}
}

// failure words a failed call for the client.
func (s *Server) failure(tool string, err error) string {
	var ae *aitp.Error
	switch {
	case errors.As(err, &ae):
		text := ae.Code + ": " + ae.Message
		if ae.Path != "" {
			text += " (at " + ae.Path + ")"
		}
		return text
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the call of %q took longer than %s", tool, s.cfg.callTimeout)
	}
	s.cfg.log.Debug("a2a: call failed", "method", tool, "err", err)
	return fmt.Sprintf("the call of %q failed", tool)
}

// agentMessage is a status message of the agent with one text part.
func (s *Server) agentMessage(taskID, contextID, text string) *message {
	return &message{id: newID(), contextID: contextID, taskID: taskID, agent: true, parts: []part{textPart(text)}}
}

func (s *Server) getTask(w http.ResponseWriter, req *request, enc encoder) {
	id, history, rerr := checkTask(req.params)
	if rerr != nil {
		writeError(w, http.StatusOK, req.id, enc.version, rerr)
		return
	}
	t, _, err := s.store.get(id)
	if err != nil {
		writeError(w, http.StatusOK, req.id, enc.version, errorOf(err, "/params/id"))
		return
	}
	writeResult(w, req.id, enc.task(t.withHistory(history)))
}

// cancelTask ends a task's call; the task ends canceled.
func (s *Server) cancelTask(w http.ResponseWriter, req *request, enc encoder) {
	id, history, rerr := checkTask(req.params)
	if rerr != nil {
		writeError(w, http.StatusOK, req.id, enc.version, rerr)
		return
	}
	t, _, err := s.store.get(id)
	if err == nil && t.state.terminal() {
		err = ErrNotCancelable
	}
	if err == nil {
		err = s.store.setState(id, stateCanceled, nil)
	}
	if err == nil {
		t, _, err = s.store.get(id)
	}
	if err != nil {
		writeError(w, http.StatusOK, req.id, enc.version, errorOf(err, "/params/id"))
		return
	}
	writeResult(w, req.id, enc.task(t.withHistory(history)))
}

// response is a JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if id == nil {
		return json.RawMessage("null")
	}
	return id
}

func writeResult(w http.ResponseWriter, id json.RawMessage, result any) {
	writeJSON(w, http.StatusOK, response{JSONRPC: "2.0", ID: idOrNull(id), Result: result})
}

func writeError(w http.ResponseWriter, status int, id json.RawMessage, version string, e *Error) {
	we := e.wire(version)
	writeJSON(w, status, response{JSONRPC: "2.0", ID: idOrNull(id), Error: &we})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"cannot encode the response"}}`)
	}
	w.Header().Set("Content-Type", a2awire.MediaJSON)
	w.WriteHeader(status)
	w.Write(b)
}

// newID returns a random UUID (version 4): task, context and message ids.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
