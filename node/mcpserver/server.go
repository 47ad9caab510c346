package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerName is the name the server reports at initialization.
const ServerName = "adpnode"

// sessionIdle closes an HTTP session that has sent no request for this
// long, so that clients that vanish do not hold memory for ever.
const sessionIdle = 30 * time.Minute

// instructions tell the host's model what the server is for.
const instructions = `This server connects you to an agent network (ADP: signed Agent Cards, found through a peer-to-peer directory). ` +
	`To get something done by another agent: call discover_agents with what you need in plain words, pick a candidate, ` +
	`read its tools with describe_agent if the candidate does not list them, then call invoke_agent with the agent id, one of its tool names and the tool's arguments. ` +
	`After a call, rate_agent records how well it went. my_card and update_my_card show and change how this node presents itself; network_status tells whether the node is connected.`

// Server is an MCP server in front of one node. It is safe for concurrent
// use; Close stops its card poller and closes its sessions.
type Server struct {
	node Node
	cfg  config
	mcp  *mcp.Server
	res  *resources

	ctx       context.Context // ended by Close: the poller's and every request's
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// New returns a server of the node's operations and starts its card
// poller.
func New(node Node, opts ...Option) *Server {
	cfg := newConfig(opts)
	s := &Server{node: node, cfg: cfg}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "adpnode agent network", Version: cfg.version},
		&mcp.ServerOptions{Instructions: instructions, Logger: cfg.log, Capabilities: &mcp.ServerCapabilities{}, GetSessionID: cfg.sessionID})
	s.addTools()
	s.res = newResources(s.mcp, node, cfg.log)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.res.pollLoop(s.ctx, cfg.poll)
	}()
	return s
}

// MCP returns the SDK server, to connect it to another transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on t (for example &mcp.StdioTransport{}) until
// the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler returns the Streamable HTTP transport of the server, one
// session per client. The caller guards it (Host, Origin); the SDK's own
// localhost check stays on as well. Close ends the context of every
// request in flight (a session's open event stream among them), a request
// in flight closes as it ends any session it made after Close closed the
// others, and later requests are answered 503: nothing of the handler
// holds up the HTTP server's shutdown or outlives Close.
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.cfg.log, SessionTimeout: sessionIdle})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
		if s.ctx.Err() != nil {
			http.Error(w, "the MCP server is closed", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r.WithContext(ctx))
		if s.ctx.Err() != nil {
			s.closeSessions() // one this request made after Close closed the others
		}
	})
}

// closeSessions closes every open session.
func (s *Server) closeSessions() error {
	var errs []error
	for ss := range s.mcp.Sessions() {
		errs = append(errs, ss.Close())
	}
	return errors.Join(errs...)
}

// Close stops the card poller, closes every open session and waits. It is
// idempotent.
func (s *Server) Close() (err error) {
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		err = s.closeSessions()
	})
	return err
}
