package mcpagent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node/mcpagent"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// errDown is what connecting fails with while the test keeps the server down.
var errDown = errors.New("server down for the test")

type downTransport struct{}

func (downTransport) Connect(context.Context) (mcp.Connection, error) { return nil, errDown }

// flakyServer connects in memory to one mcptest server while up, and
// fails to connect while down; kill ends the current session.
type flakyServer struct {
	s    *mcp.Server
	down atomic.Bool
	mu   sync.Mutex
	ss   *mcp.ServerSession
}

func (f *flakyServer) transport() mcp.Transport {
	if f.down.Load() {
		return downTransport{}
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.s.Connect(context.Background(), st, nil)
	if err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.ss = ss
	f.mu.Unlock()
	return ct
}

func (f *flakyServer) kill() {
	f.down.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ss.Close()
}

func TestRestartAfterTheSessionEnds(t *testing.T) {
	f := &flakyServer{s: mcptest.NewServer()}
	a, err := mcpagent.New(mcpagent.Transport(f.transport), mcpagent.Backoff(time.Millisecond, 5*time.Millisecond, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	call := func() error {
		return a.Call(context.Background(), &aitptest.Chunks{}, &aitp.Request{Method: "echo", Body: []byte(`{"text":"x"}`)}, "")
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}

	f.kill()
	polltest.Until(t, 10*time.Second, func() error {
		if st := a.Status(); st.State != mcpagent.StateRestarting || st.Restarts < 2 {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})
	err = call()
	var e *aitp.Error
	if !errors.As(err, &e) || e.Status != aitp.StatusBusy || e.Code != mcpagent.CodeUnavailable ||
		!strings.Contains(e.Message, "restarting") || !strings.Contains(e.Message, errDown.Error()) {
		t.Fatalf("call while down: %v", err)
	}

	f.down.Store(false)
	polltest.Until(t, 10*time.Second, call)
	if st := a.Status(); st.State != mcpagent.StateRunning || st.LastError == "" {
		t.Fatalf("status after the restart %+v", st)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.State != mcpagent.StateClosed {
		t.Fatalf("status after Close %+v", st)
	}
	if err := a.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
}
