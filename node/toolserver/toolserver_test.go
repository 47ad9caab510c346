package toolserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/aitptest"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/toolserver"
)

// agent answers each tool as the test says.
type agent struct{}

func (agent) Call(_ context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error {
	switch r.Method {
	case "chunks": // three writes, the last not JSON
		for _, c := range []string{`{"n":1}`, `{"n":2}`, `plain text`} {
			if _, err := w.Write([]byte(c)); err != nil {
				return err
			}
		}
		return nil
	case "caller":
		_, err := w.Write([]byte(`"` + caller + `"`))
		return err
	case "huge":
		for range toolserver.MaxLocalReply/1024 + 1 {
			if _, err := w.Write([]byte(strings.Repeat("x", 1024))); err != nil {
				return err
			}
		}
		return nil
	case "panics":
		panic("agent bug")
	}
	return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "unknown")
}

type fixture struct {
	tools  *toolserver.Tools
	served *prometheus.CounterVec
	pair   *aitptest.Pair

	mu   sync.Mutex
	card *adp.Card
}

func (f *fixture) setCard(names ...string) {
	c := &adp.Card{Name: "tools"}
	for _, n := range names {
		c.Tools = append(c.Tools, adp.Tool{Name: n})
	}
	f.mu.Lock()
	f.card = c
	f.mu.Unlock()
}

func (f *fixture) current() *adp.Card {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.card
}

// newFixture serves tools on the second of two mocknet hosts; the first
// calls them.
func newFixture(t *testing.T, demo bool, a toolserver.Agent) *fixture {
	t.Helper()
	p := aitptest.NewPair(t)
	f := &fixture{pair: p, served: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "served"}, []string{"method", "status"})}
	f.tools = toolserver.New(toolserver.Config{Server: p.Server, Card: f.current, Demo: demo, Agent: a, Served: f.served, Self: p.Callee.ID()})
	return f
}

func (f *fixture) count(method, status string) float64 {
	var m dto.Metric
	if err := f.served.WithLabelValues(method, status).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

func statusOf(err error) aitp.Status {
	st, _ := aitp.StatusOf(err)
	return st
}

// Peers reach the registered tools of the current card; a tool taken off
// the card answers NOT_FOUND at once; ADP names and names that are no
// AITP method are never registered.
func TestServesPeers(t *testing.T) {
	f := newFixture(t, true, agent{})
	f.setCard(demoagent.Echo, "caller", "adp.describe", "bad name")
	f.tools.Register(f.current())
	ctx := context.Background()
	p := f.pair.Callee.ID()
	reply, err := f.pair.Client.Call(ctx, p, demoagent.Echo, []byte(`{"a":1}`))
	if err != nil || string(reply) != `{"a":1}` {
		t.Fatalf("echo: %q %v", reply, err)
	}
	reply, err = f.pair.Client.Call(ctx, p, "caller", nil)
	if want := `"` + adp.AgentID(f.pair.Caller.ID()) + `"`; err != nil || string(reply) != want {
		t.Fatalf("the agent was told caller %s (%v), want %s", reply, err, want)
	}
	// Unregistered, the method is refused by the server before any
	// handler, so the tools count nothing.
	if _, err := f.pair.Client.Call(ctx, p, "adp.describe", nil); statusOf(err) != aitp.StatusNotFound || f.count("adp.describe", "NOT_FOUND") != 0 {
		t.Fatalf("adp.describe reached the tools: %v", err)
	}
	f.setCard("caller")
	if _, err := f.pair.Client.Call(ctx, p, demoagent.Echo, []byte(`{}`)); statusOf(err) != aitp.StatusNotFound {
		t.Fatalf("a tool off the card: %v, want NOT_FOUND", err)
	}
	if f.count(demoagent.Echo, "OK") != 1 || f.count(demoagent.Echo, "NOT_FOUND") != 1 || f.count("caller", "OK") != 1 {
		t.Fatalf("served counts: echo OK %v, echo NOT_FOUND %v, caller OK %v", f.count(demoagent.Echo, "OK"), f.count(demoagent.Echo, "NOT_FOUND"), f.count("caller", "OK"))
	}
}

// In-process calls: whole replies joined and made JSON, streamed ones
// chunk by chunk, an oversized reply refused, a panic answered, and a
// tool with no agent behind it NOT_FOUND.
func TestCall(t *testing.T) {
	f := newFixture(t, false, agent{})
	f.setCard("chunks", "huge", "panics", demoagent.Echo)
	ctx := context.Background()
	var got []string
	collect := func(c json.RawMessage) error { got = append(got, string(c)); return nil }

	if err := f.tools.Call(ctx, "chunks", nil, false, collect); err != nil || len(got) != 1 || got[0] != `"{\"n\":1}{\"n\":2}plain text"` {
		t.Fatalf("whole reply: %q %v", got, err)
	}
	got = nil
	if err := f.tools.Call(ctx, "chunks", nil, true, collect); err != nil || strings.Join(got, "|") != `{"n":1}|{"n":2}|"plain text"` {
		t.Fatalf("streamed reply: %q %v", got, err)
	}
	stop := errors.New("enough")
	if err := f.tools.Call(ctx, "chunks", nil, true, func(json.RawMessage) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn's error ended the call with %v", err)
	}
	if err := f.tools.Call(ctx, "huge", nil, false, collect); statusOf(err) != aitp.StatusError || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized reply: %v", err)
	}
	if err := f.tools.Call(ctx, "panics", nil, false, collect); statusOf(err) != aitp.StatusError || f.count("panics", "ERROR") != 1 || f.count("panics", "OK") != 0 {
		t.Fatalf("panicking agent: %v, counted ERROR %v, OK %v", err, f.count("panics", "ERROR"), f.count("panics", "OK"))
	}
	// Demo off: the demo tool's name on the card reaches the agent, which
	// does not know it.
	if err := f.tools.Call(ctx, demoagent.Echo, []byte(`{}`), false, collect); statusOf(err) != aitp.StatusNotFound {
		t.Fatalf("echo with the demo agent off: %v", err)
	}
	none := newFixture(t, false, nil)
	none.setCard("chunks")
	if err := none.tools.Call(ctx, "chunks", nil, false, collect); statusOf(err) != aitp.StatusNotFound || !strings.Contains(err.Error(), "no agent serves") {
		t.Fatalf("no agent: %v", err)
	}
}
