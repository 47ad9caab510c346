package aitp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"
)

// Request is one call as a handler sees it. Body is owned by the handler.
type Request struct {
	Remote      peer.ID
	RemoteAddr  ma.Multiaddr // the connection's remote address (for per-network limits)
	Method      string
	Body        []byte
	StreamReply bool      // the caller accepts a streamed reply
	Deadline    time.Time // when the handler's context expires
}

// ResponseWriter carries a handler's reply. When the request has
// StreamReply, each Write is sent at once as one or more STREAM chunks;
// otherwise writes are appended to the one buffered reply body. A Write
// after the call has finished (deadline, cancellation) fails.
type ResponseWriter interface {
	Write(p []byte) (int, error)
}

// Handler serves one method. Returning an *Error answers with its status
// and JSON body; any other error answers StatusError; a panic answers
// StatusError and is logged.
type Handler interface {
	ServeAITP(ctx context.Context, w ResponseWriter, r *Request) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, w ResponseWriter, r *Request) error

// ServeAITP calls f.
func (f HandlerFunc) ServeAITP(ctx context.Context, w ResponseWriter, r *Request) error {
	return f(ctx, w, r)
}

// Server answers AITP calls on a libp2p host. It is safe for concurrent
// use. Handle may be called at any time. Shutdown drains; Close aborts.
// Both wait for the stream and handler goroutines the server started.
type Server struct {
	h        host.Host
	cfg      serverConfig
	log      *slog.Logger
	metrics  *serverMetrics
	ctx      context.Context
	cancel   context.CancelFunc
	handlers atomic.Pointer[map[string]Handler]
	window   atomic.Int32

	hmu sync.Mutex // serialises Handle

	mu       sync.Mutex
	conns    map[*serverConn]struct{}
	peers    map[peer.ID]*peerLoad
	inflight int
	closing  bool
	closed   bool
	connGone chan struct{}

	idleWorkers chan func() // parked goroutines taking work
	wg          sync.WaitGroup
	closeOnce   sync.Once
}

// workerIdle is how long a parked goroutine waits for work before exiting.
const workerIdle = 10 * time.Second

// spawn runs f on a parked goroutine when one is idle, else on a new one.
// Reusing goroutines keeps their grown stacks: the read loop runs deep in
// libp2p's stack and a fresh goroutine would copy its stack each time.
func (s *Server) spawn(f func()) {
	select {
	case s.idleWorkers <- f:
		return
	default:
	}
	s.wg.Add(1)
	go s.worker(f)
}

func (s *Server) worker(f func()) {
	defer s.wg.Done()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		t.Reset(workerIdle)
		select {
		case f = <-s.idleWorkers:
		case <-t.C:
			return
		case <-s.ctx.Done():
			return
		}
	}
}

type peerLoad struct{ streams, inflight int }

// NewServer registers ProtocolID on h and returns the server.
func NewServer(h host.Host, opts ...ServerOption) (*Server, error) {
	cfg := defaultServerConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		h: h, cfg: cfg, log: cfg.log, ctx: ctx, cancel: cancel,
		conns:       make(map[*serverConn]struct{}),
		peers:       make(map[peer.ID]*peerLoad),
		connGone:    make(chan struct{}, 1),
		idleWorkers: make(chan func()),
	}
	m, err := newServerMetrics(cfg.reg, s)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("aitp: register metrics: %w", err)
	}
	s.metrics = m
	s.window.Store(int32(cfg.window))
	handlers := map[string]Handler{}
	s.handlers.Store(&handlers)
	h.SetStreamHandler(protocol.ID(ProtocolID), s.handleStream)
	return s, nil
}

// Handle registers h for method, replacing any earlier handler. It panics
// on an invalid method name, like http.ServeMux.
func (s *Server) Handle(method string, h Handler) {
	if !ValidMethod(method) {
		panic(fmt.Sprintf("aitp: invalid method name %q", method))
	}
	if h == nil {
		panic("aitp: nil handler")
	}
	s.hmu.Lock()
	defer s.hmu.Unlock()
	old := *s.handlers.Load()
	m := make(map[string]Handler, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[method] = h
	s.metrics.register(method)
	s.handlers.Store(&m)
}

// HandleFunc registers f for method.
func (s *Server) HandleFunc(method string, f HandlerFunc) { s.Handle(method, f) }

// SetWindow changes the per-association window and announces it to every
// open association with a WINDOW segment.
func (s *Server) SetWindow(n int) error {
	if n <= 0 || n > 0xffff {
		return fmt.Errorf("aitp: window %d out of range", n)
	}
	s.window.Store(int32(n))
	s.mu.Lock()
	conns := make([]*serverConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.w.write(nil, &Segment{Type: TypeWindow, Association: c.assocID(), Window: uint16(n)})
	}
	return nil
}

// Stats reports the server's load.
type Stats struct {
	Streams  int // open AITP streams
	Inflight int // requests admitted and not yet finished
}

// Stats returns the current load.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Streams: len(s.conns), Inflight: s.inflight}
}

// admit counts one request against the peer and global bounds.
func (s *Server) admit(p peer.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl := s.peers[p]
	if s.closing || pl == nil || pl.inflight >= s.cfg.maxPeerInflight || s.inflight >= s.cfg.maxInflight {
		return false
	}
	pl.inflight++
	s.inflight++
	return true
}

func (s *Server) release(p peer.ID) {
	s.mu.Lock()
	if pl := s.peers[p]; pl != nil {
		pl.inflight--
		if pl.streams == 0 && pl.inflight == 0 {
			delete(s.peers, p)
		}
	}
	s.inflight--
	s.mu.Unlock()
}

func (s *Server) handleStream(st network.Stream) {
	remote := st.Conn().RemotePeer()
	s.mu.Lock()
	pl := s.peers[remote]
	if s.closing || s.closed || (pl != nil && pl.streams >= s.cfg.maxStreamsPeer) {
		s.mu.Unlock()
		st.Reset()
		return
	}
	if pl == nil {
		pl = &peerLoad{}
		s.peers[remote] = pl
	}
	pl.streams++
	s.wg.Add(1)
	c := newServerConn(s, st, remote)
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer s.wg.Done()

	if err := st.Scope().SetService(ServiceName); err != nil {
		s.log.Debug("aitp: service scope", "peer", remote, "err", err)
		st.Reset()
		s.dropConn(c)
		return
	}
	if err := st.Scope().ReserveMemory(streamMemory, network.ReservationPriorityAlways); err != nil {
		s.log.Debug("aitp: reserve stream memory", "peer", remote, "err", err)
		st.Reset()
		s.dropConn(c)
		return
	}
	c.run()
}

func (s *Server) dropConn(c *serverConn) {
	s.mu.Lock()
	delete(s.conns, c)
	if pl := s.peers[c.remote]; pl != nil {
		pl.streams--
		if pl.streams == 0 && pl.inflight == 0 {
			delete(s.peers, c.remote)
		}
	}
	s.mu.Unlock()
	select {
	case s.connGone <- struct{}{}:
	default:
	}
}

// Shutdown stops accepting streams, sends CLOSE on every association and
// waits until each has drained its in-flight requests and been
// acknowledged. When ctx ends first it aborts what is left (ABORT, handler
// contexts canceled) and returns ctx's error. It then releases everything
// as Close does.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	conns := make([]*serverConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.h.RemoveStreamHandler(protocol.ID(ProtocolID))
	for _, c := range conns {
		c.startClose()
	}
	var err error
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-s.connGone:
			continue
		case <-ctx.Done():
			err = ctx.Err()
			s.abortAll()
		}
		break
	}
	return errors.Join(err, s.Close())
}

func (s *Server) abortAll() {
	s.mu.Lock()
	conns := make([]*serverConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.abort(true)
	}
}

// Close aborts every association at once: in-flight calls fail, handler
// contexts are canceled. It waits for the server's goroutines, including
// handlers, to return. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing, s.closed = true, true
		s.mu.Unlock()
		s.h.RemoveStreamHandler(protocol.ID(ProtocolID))
		s.cancel()
		s.abortAll()
	})
	s.wg.Wait()
	return nil
}
