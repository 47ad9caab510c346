package aitp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// errClosing means the association stopped taking calls; the caller
// should open a new one.
var errClosing = errors.New("aitp: association closing")

// unsentError is a call's failure on an association that ended before
// any octet of the call's REQUEST went into the stream: the remote cannot
// have seen the call, so it may go out again on a new association,
// idempotent or not.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }
func (e *unsentError) Unwrap() error { return e.err }

// isUnsent reports whether err is an unsentError.
func isUnsent(err error) bool {
	var u *unsentError
	return errors.As(err, &u)
}

// maxResends bounds how many times one call goes out again on a new
// association because no handler can have run it on the last one.
const maxResends = 2

// clientConn is the caller end of one stream and its association.
type clientConn struct {
	cl    *Client
	p     peer.ID
	st    network.Stream
	fr    frameReader // used by the goroutine holding the read role
	w     *frameWriter
	assoc uint32
	// bgWake asks the background reader to take the read role.
	bgWake chan struct{}
	// deadCh is closed when the association ends.
	deadCh chan struct{}

	mu        sync.Mutex
	window    int
	inflight  int
	waiters   []chan struct{}
	pend      map[uint32]*pending
	pings     map[uint32]chan struct{}
	nextID    uint32
	closing   bool // no new calls
	closeRecv bool // the server sent CLOSE: acknowledge once drained
	closeSent bool
	dead      error // the stream ended
	reading   bool  // a goroutine holds the read role
	// canInterrupt: a read deadline interrupts a blocked read, so callers
	// with cancelable contexts may take the read role.
	canInterrupt bool
	lastUsed     time.Time
	idle         *time.Timer
}

// connLost reports whether the connections a stream was to open on are
// gone: none was left once the dial returned, or one has closed since.
func connLost(conns []network.Conn) bool {
	return len(conns) == 0 || slices.ContainsFunc(conns, network.Conn.IsClosed)
}

// open opens a stream to p and exchanges OPEN / ACCEPT.
func (c *Client) open(ctx context.Context, p peer.ID) (*clientConn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.openTimeout)
	defer cancel()
	// A relayed (limited) connection carries calls until a direct one
	// replaces it (see upgradable).
	ctx = network.WithAllowLimitedConn(ctx, "aitp")
	// The dial comes first, apart from the stream, so that a failure of
	// the stream can be told from a failed dial.
	if err := c.h.Connect(ctx, peer.AddrInfo{ID: p}); err != nil {
		return nil, fmt.Errorf("%w: open stream: %w", ErrConnLost, err)
	}
	conns := c.h.Network().ConnsToPeer(p)
	st, err := c.h.NewStream(network.WithNoDial(ctx, "aitp: dialled"), p, protocol.ID(ProtocolID))
	if err != nil {
		err = fmt.Errorf("%w: open stream: %w", ErrConnLost, err)
		if ctx.Err() == nil && (errors.Is(err, network.ErrReset) || connLost(conns)) {
			// The connection closed under the stream, either while the
			// protocol was being negotiated or before the stream opened
			// at all (a dial returns the connection it finds, which may
			// be closing): nothing was sent, and a new dial may succeed.
			err = &unsentError{err}
		}
		return nil, err
	}
	if err := st.Scope().ReserveMemory(streamMemory, network.ReservationPriorityAlways); err != nil {
		st.Reset()
		return nil, fmt.Errorf("aitp: reserve stream memory: %w", err)
	}
	var id [4]byte
	rand.Read(id[:])
	assoc := binary.BigEndian.Uint32(id[:]) | 1
	cc := &clientConn{
		cl: c, p: p, st: st, w: newFrameWriter(st, false),
		fr:    frameReader{br: bufio.NewReaderSize(st, readBufSize), buf: make([]byte, MaxMessageSize)},
		assoc: assoc, pend: make(map[uint32]*pending), pings: make(map[uint32]chan struct{}),
		lastUsed: time.Now(), bgWake: make(chan struct{}, 1), deadCh: make(chan struct{}),
	}
	fail := func(err error) (*clientConn, error) {
		st.Reset()
		st.Scope().ReleaseMemory(streamMemory)
		return nil, fmt.Errorf("%w: %w", ErrConnLost, err)
	}
	// The stream broke under the handshake (its connection closing, say)
	// before any call was sent on it: the calls waiting for it may try a
	// new one.
	broke := func(err error) (*clientConn, error) {
		_, err = fail(err)
		return nil, &unsentError{err}
	}
	if err := cc.w.write(nil, &Segment{Type: TypeOpen, Association: assoc}); err != nil {
		return broke(err)
	}
	// Reset, not a read deadline, bounds the wait: some streams (mocknet)
	// ignore deadlines.
	stop := context.AfterFunc(ctx, func() { st.Reset() })
	defer stop()
	for {
		raw, err := cc.fr.next()
		if err != nil {
			if ctx.Err() != nil {
				return fail(fmt.Errorf("%w (waiting for ACCEPT)", ctx.Err()))
			}
			return broke(err)
		}
		m, err := DecodeMessage(raw)
		if err != nil {
			return fail(err)
		}
		if m.NextProto != NextProtoAITP {
			continue
		}
		seg, err := DecodeSegment(m.Payload)
		if err != nil {
			return fail(err)
		}
		if seg.Type != TypeAccept || seg.Association != assoc {
			return fail(fmt.Errorf("%w: %s before ACCEPT", ErrProtocol, seg.Type))
		}
		cc.window = max(int(seg.Window), 1)
		break
	}
	if !stop() {
		return fail(fmt.Errorf("%w (waiting for ACCEPT)", ctx.Err()))
	}
	// A caller may read this stream itself only if a read deadline can
	// interrupt it when its context ends. Transports that report
	// themselves honour deadlines; mocknet and unknown ones get the
	// background reader only.
	cc.canInterrupt = st.Conn().ConnState().Transport != ""
	cc.idle = time.AfterFunc(c.cfg.idle, cc.idleCheck)
	return cc, nil
}

// acquire waits for room in the remote's window.
func (cc *clientConn) acquire(ctx context.Context) error {
	cc.mu.Lock()
	if cc.dead != nil {
		cc.mu.Unlock()
		return cc.dead
	}
	if cc.closing {
		cc.mu.Unlock()
		return errClosing
	}
	if cc.inflight < cc.window && len(cc.waiters) == 0 {
		cc.inflight++
		cc.w.inflight.Add(1)
		cc.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	cc.waiters = append(cc.waiters, ch)
	cc.mu.Unlock()
	select {
	case <-ch:
		cc.mu.Lock()
		err := cc.dead
		cc.mu.Unlock()
		if err != nil {
			return err
		}
		return nil
	case <-ctx.Done():
		cc.mu.Lock()
		defer cc.mu.Unlock()
		for i, w := range cc.waiters {
			if w == ch {
				cc.waiters = append(cc.waiters[:i], cc.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// Granted meanwhile: hand the slot back.
		cc.releaseLocked()
		return ctx.Err()
	}
}

// releaseLocked frees one window slot, granting it to the first waiter.
func (cc *clientConn) releaseLocked() {
	cc.inflight--
	cc.w.inflight.Add(-1)
	cc.grantLocked()
}

func (cc *clientConn) grantLocked() {
	for len(cc.waiters) > 0 && cc.inflight < cc.window {
		ch := cc.waiters[0]
		cc.waiters = cc.waiters[1:]
		cc.inflight++
		cc.w.inflight.Add(1)
		close(ch)
	}
}

// newIDLocked returns a request id no outstanding call or ping uses.
func (cc *clientConn) newIDLocked() uint32 {
	for {
		cc.nextID++
		id := cc.nextID
		_, call := cc.pend[id]
		_, ping := cc.pings[id]
		if id != 0 && !call && !ping {
			return id
		}
	}
}

// send writes a REQUEST (and STREAM chunks for a large body).
// A failure before the REQUEST reached the stream is an unsentError;
// after, send returns pd, which carries the failure unless a reply came
// first.
func (cc *clientConn) send(ctx context.Context, method string, body []byte, stream bool) (*pending, error) {
	if err := cc.acquire(ctx); err != nil {
		if err != errClosing && !isContextErr(err) {
			err = &unsentError{err} // the association was dead
		}
		return nil, err
	}
	pd := newPending(stream)
	cc.mu.Lock()
	if cc.dead != nil || cc.closing {
		var err error = errClosing
		if cc.dead != nil {
			err = &unsentError{cc.dead}
		}
		cc.releaseLocked()
		cc.mu.Unlock()
		return nil, err
	}
	pd.id = cc.newIDLocked()
	cc.pend[pd.id] = pd
	cc.lastUsed = time.Now()
	cc.mu.Unlock()

	var optBuf [6]byte
	opts := optBuf[:0]
	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds() + 1
		ms = min(max(ms, 1), int64(^uint32(0)))
		opts = appendDeadline(opts, uint32(ms))
	}
	seg := Segment{Type: TypeRequest, Association: cc.assoc, RequestID: pd.id}
	if stream {
		seg.Flags |= FlagStreamReply
	}
	room := maxChunk(len(opts), len(method))
	first := min(len(body), room)
	seg.Body = body[:first]
	rest := body[first:]
	if len(rest) == 0 {
		seg.Flags |= FlagFin
	}
	at, err := cc.w.writeAt(opts, &seg, method)
	pd.at = at
	for seq := uint32(1); err == nil && len(rest) > 0; seq++ {
		k := min(len(rest), MaxBodyPerMessage)
		s := Segment{Type: TypeStream, Association: cc.assoc, RequestID: pd.id, Sequence: seq, Body: rest[:k]}
		if k == len(rest) {
			s.Flags = FlagFin
		}
		err = cc.w.write(nil, &s)
		rest = rest[k:]
	}
	if err != nil {
		if !errors.Is(err, ErrConnLost) {
			err = fmt.Errorf("%w: %w", ErrConnLost, err)
		}
		cc.fail(err)
		cc.st.Reset()
		if !cc.w.reached(at) {
			return nil, &unsentError{err}
		}
		// The REQUEST went into the stream, so the call is in flight and
		// pd holds its outcome: fail has failed it unless its reply came
		// first. The reply can come first: a write also reports a failure
		// that set in after its frame went out, such as the reader ending
		// the association on the server's CLOSE and a BUSY refusing this
		// call while the write was returning.
	}
	return pd, nil
}

// resendable reports whether the remote cannot have run pd, which failed:
// its association ended before any octet of its REQUEST went into the
// stream, or the server refused it with BUSY while closing the
// association.
func (cc *clientConn) resendable(pd *pending) bool {
	cc.mu.Lock()
	err, refused := pd.err, pd.refused
	cc.mu.Unlock()
	return refused || errors.Is(err, ErrConnLost) && !cc.w.reached(pd.at)
}

// abandon gives up on pd: the remote is told with CANCEL, and the reply,
// when it comes, only frees the window slot. It reports false when pd had
// already finished, in which case its result stands.
func (cc *clientConn) abandon(pd *pending) (finished bool) {
	cc.mu.Lock()
	if pd.finished {
		cc.mu.Unlock()
		return true
	}
	if pd.abandoned {
		cc.mu.Unlock()
		return false
	}
	pd.abandoned = true
	pd.chunks, pd.buffered = nil, 0
	dead := cc.dead != nil
	cc.mu.Unlock()
	if !dead {
		cc.w.write(nil, &Segment{Type: TypeCancel, Association: cc.assoc, RequestID: pd.id})
	}
	return false
}

func (cc *clientConn) ping(ctx context.Context) (time.Duration, error) {
	ch := make(chan struct{})
	cc.mu.Lock()
	if cc.dead != nil {
		cc.mu.Unlock()
		return 0, cc.dead
	}
	if cc.closing {
		cc.mu.Unlock()
		return 0, errClosing
	}
	id := cc.newIDLocked()
	cc.pings[id] = ch
	cc.mu.Unlock()
	start := time.Now()
	defer func() {
		cc.mu.Lock()
		delete(cc.pings, id)
		cc.mu.Unlock()
	}()
	if err := cc.w.write(nil, &Segment{Type: TypePing, Association: cc.assoc, RequestID: id}); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrConnLost, err)
	}
	if err := cc.await(ctx, ch); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// fail ends the association: every pending call fails with err.
func (cc *clientConn) fail(err error) {
	cc.settle(err)
	cc.w.fail(err)
	cc.cl.forget(cc)
}

// settle marks the association dead with err (the first error wins) and
// fails every pending call with it, leaving the stream as it is.
func (cc *clientConn) settle(err error) {
	cc.mu.Lock()
	if cc.dead == nil {
		cc.dead = err
		close(cc.deadCh)
	}
	cc.closing = true
	for _, pd := range cc.pend {
		if pd.err == nil {
			pd.err = cc.dead
		}
		cc.finishLocked(pd)
	}
	for _, ch := range cc.waiters {
		close(ch)
	}
	cc.waiters = nil
	if cc.idle != nil {
		cc.idle.Stop()
	}
	cc.mu.Unlock()
}

// checkDrained sends CLOSE_ACK after a CLOSE from the server once no call
// is pending, and ends the stream.
func (cc *clientConn) checkDrained() bool {
	cc.mu.Lock()
	if !cc.closeRecv || len(cc.pend) > 0 || cc.closeSent {
		cc.mu.Unlock()
		return false
	}
	cc.closeSent = true // the acknowledgement is our last segment
	cc.mu.Unlock()
	cc.w.write(nil, &Segment{Type: TypeCloseAck, Association: cc.assoc})
	cc.fail(fmt.Errorf("%w: association closed by the server", ErrConnLost))
	cc.st.Close()
	return true
}

func (cc *clientConn) idleCheck() {
	idle, wt := cc.cl.cfg.idle, cc.cl.cfg.writeTimeout
	if stuck := cc.w.stuckFor(); stuck > wt {
		cc.fail(fmt.Errorf("%w: stream write stalled for %s", ErrConnLost, stuck))
		cc.st.Reset()
		return
	}
	cc.mu.Lock()
	if cc.dead != nil {
		cc.mu.Unlock()
		return
	}
	if cc.closeSent {
		cc.mu.Unlock()
		// CLOSE went unanswered for a whole idle period.
		cc.fail(fmt.Errorf("%w: CLOSE unanswered", ErrConnLost))
		cc.st.Reset()
		return
	}
	since := time.Since(cc.lastUsed)
	switch {
	case len(cc.pend) > 0 || cc.inflight > 0 || cc.closing:
		cc.idle.Reset(min(idle, wt))
		cc.mu.Unlock()
		return
	case since < idle:
		cc.idle.Reset(idle - since)
		cc.mu.Unlock()
		return
	}
	cc.closing, cc.closeSent = true, true
	cc.idle.Reset(idle)
	cc.mu.Unlock()
	cc.cl.forget(cc)
	cc.w.write(nil, &Segment{Type: TypeClose, Association: cc.assoc})
	select {
	case cc.bgWake <- struct{}{}: // someone must read the CLOSE_ACK
	default:
	}
}
