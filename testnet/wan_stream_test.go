package testnet_test

import (
	"errors"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
)

// wanWindow is the most a wanStream holds in flight before a write waits,
// as a TCP sender waits on a full window.
const wanWindow = 4 << 20

var errWANClosed = errors.New("wan stream: closed for writing")

// wanStream is one end of a stream on a link with a one-way latency, as
// TCP carries it: a write returns once queued, and every write arrives in
// order, lat after it was made, however many are in flight. A mocknet
// link's own latency delivers one write at a time (a write waits until
// the one before it has arrived), which adds a latency to every message
// queued behind another; the WAN benchmark's links therefore have no
// latency of their own and its hosts wrap every stream in a wanStream.
// CloseWrite, like a FIN, is queued behind the writes and returns at once;
// Reset drops what is queued.
type wanStream struct {
	network.Stream
	lat time.Duration

	mu       sync.Mutex
	space    *sync.Cond // signalled when queued bytes leave
	queue    []wanWrite
	queued   int  // bytes in queue
	running  bool // a deliver goroutine drains queue
	closed   bool // CloseWrite or Reset called
	reset    bool
	writeErr error // the underlying stream's, once a delivery failed
}

type wanWrite struct {
	b     []byte // nil: the CloseWrite marker
	at    time.Time
	close bool
}

func newWANStream(s network.Stream, lat time.Duration) *wanStream {
	w := &wanStream{Stream: s, lat: lat}
	w.space = sync.NewCond(&w.mu)
	return w
}

func (w *wanStream) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.queued > 0 && w.queued+len(p) > wanWindow && !w.closed && w.writeErr == nil {
		w.space.Wait()
	}
	switch {
	case w.writeErr != nil:
		return 0, w.writeErr
	case w.reset:
		return 0, network.ErrReset
	case w.closed:
		return 0, errWANClosed
	}
	w.push(wanWrite{b: append([]byte(nil), p...), at: time.Now().Add(w.lat)})
	return len(p), nil
}

// push queues a write and, if none is pending, schedules the delivery
// of the queue at the write's arrival time; w.mu is held.
func (w *wanStream) push(x wanWrite) {
	w.queue = append(w.queue, x)
	w.queued += len(x.b)
	if !w.running {
		w.running = true
		time.AfterFunc(time.Until(x.at), w.deliver)
	}
}

// deliver writes each queued write that is due to the stream beneath, in
// order, and schedules itself again at the arrival time of the first one
// that is not. No goroutine waits while the link holds a write: at 500
// nodes the benchmark's own timers and parked goroutines were a tenth of
// its CPU.
func (w *wanStream) deliver() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) > 0 && !w.reset {
		x := w.queue[0]
		if d := time.Until(x.at); d > 0 {
			time.AfterFunc(d, w.deliver)
			return // still running
		}
		w.queue[0] = wanWrite{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		var err error
		if x.close {
			err = w.Stream.CloseWrite()
		} else {
			_, err = w.Stream.Write(x.b)
		}
		w.mu.Lock()
		w.queued = max(0, w.queued-len(x.b)) // drop may have emptied it
		if err != nil && w.writeErr == nil && !w.reset {
			w.writeErr = err
			w.queue, w.queued = nil, 0
		}
		w.space.Broadcast()
	}
	w.running = false
}

func (w *wanStream) CloseWrite() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	w.space.Broadcast()
	if w.writeErr != nil {
		return w.writeErr
	}
	w.push(wanWrite{close: true, at: time.Now().Add(w.lat)})
	return nil
}

func (w *wanStream) Close() error {
	rerr := w.Stream.CloseRead()
	return errors.Join(rerr, w.CloseWrite())
}

func (w *wanStream) Reset() error {
	w.drop()
	return w.Stream.Reset()
}

func (w *wanStream) ResetWithError(code network.StreamErrorCode) error {
	w.drop()
	return w.Stream.ResetWithError(code)
}

// drop empties the queue of a stream being reset.
func (w *wanStream) drop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed, w.reset = true, true
	w.queue, w.queued = nil, 0
	w.space.Broadcast()
}
