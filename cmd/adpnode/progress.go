package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Progress line timing.
const (
	// progressDelay is how long a request runs before a progress line
	// appears: quick answers print nothing.
	progressDelay = time.Second
	// progressTick is the spinner's frame interval.
	progressTick = 200 * time.Millisecond
)

var spinnerFrames = []string{"|", "/", "-", `\`}

// progressTransport shows a spinner with the elapsed time on w while a
// request waits for its answer's headers, once it has waited
// progressDelay, and only when w is a terminal. The line is erased when
// the answer arrives.
type progressTransport struct {
	next  http.RoundTripper
	w     io.Writer
	label string
}

func (t *progressTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isTerminal(t.w) {
		return t.next.RoundTrip(req)
	}
	stop := startProgress(t.w, t.label)
	defer stop()
	return t.next.RoundTrip(req)
}

// isTerminal reports whether w is a character device, such as a
// terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startProgress draws label with a spinner on w from progressDelay on;
// the returned stop erases it and waits for the drawing goroutine.
func startProgress(w io.Writer, label string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		select {
		case <-done:
			return
		case <-time.After(progressDelay):
		}
		tick := time.NewTicker(progressTick)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%s %s (%ds)\x1b[K", spinnerFrames[i%len(spinnerFrames)], label, int(time.Since(start).Seconds()))
			select {
			case <-done:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done); wg.Wait() })
	}
}
