package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/mcpagent"
	"github.com/adpnode/adpnode/node/mcpagent/mcptest"
)

// TestMain lets the test binary be the stdio MCP server of the tests
// (mcptest.Command re-executes it).
func TestMain(m *testing.M) {
	mcptest.MaybeServeStdio()
	os.Exit(m.Run())
}

// mcpPair starts a node with an MCP server behind it (tn says which) and
// a caller node that holds its card.
func mcpPair(t *testing.T, tn testNode) (agent, caller *node.Node) {
	t.Helper()
	agent = startNode(t, tn)
	caller = startNode(t, testNode{name: "caller", bootstrap: []string{addrOf(t, agent)}})
	polltest.For(t, 20*time.Second, "the caller holds the agent's card", func() bool { return caller.CardCount() == 2 })
	return agent, caller
}

func toolNames(c *adp.Card) []string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func aitpError(err error) *aitp.Error {
	var e *aitp.Error
	if errors.As(err, &e) {
		return e
	}
	return &aitp.Error{Message: fmt.Sprint(err)}
}

// TestMCPServerBehindNode: an in-process go-sdk server over Streamable
// HTTP behind a real node; another node calls it over AITP.
func TestMCPServerBehindNode(t *testing.T) {
	s := mcptest.NewServer()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close) // after the node's Close (cleanups run last first)
	agent, caller := mcpPair(t, testNode{name: "mcp agent", agentMCPURL: srv.URL})
	ctx := context.Background()

	// The tool list is the card's, with its schemas, on a signed card.
	card := agent.Card()
	if got, want := toolNames(card), []string{"count", "echo", "fail", "grow"}; !slices.Equal(got, want) {
		t.Fatalf("card tools %v, want %v", got, want)
	}
	if _, err := adp.DecodeVerified(card.Raw()); err != nil {
		t.Fatalf("card does not verify: %v", err)
	}
	i := slices.IndexFunc(card.Tools, func(t adp.Tool) bool { return t.Name == "echo" })
	if !strings.Contains(string(card.Tools[i].InputSchema), `"text"`) {
		t.Fatalf("echo schema %s", card.Tools[i].InputSchema)
	}

	// A call round-trips.
	res, err := caller.Invoke(ctx, agent.AgentID(), "echo", []byte(`{"text":"over the network"}`))
	if err != nil || !strings.Contains(string(res.Body), `"text":"over the network"`) {
		t.Fatalf("echo: %v %s", err, res)
	}

	// isError and a bad argument.
	_, err = caller.Invoke(ctx, agent.AgentID(), "fail", nil)
	if e := aitpError(err); e.Status != aitp.StatusError || e.Code != mcpagent.CodeToolError || !strings.Contains(e.Message, "boom") {
		t.Fatalf("fail: %v", err)
	}
	_, err = caller.Invoke(ctx, agent.AgentID(), "echo", []byte(`{"text":5}`))
	if e := aitpError(err); e.Status != aitp.StatusInvalidRequest || !strings.Contains(e.Message, "text") {
		t.Fatalf("bad argument: %v", err)
	}

	// Progress streams as chunks, the result last.
	var got []string
	err = caller.InvokeStream(ctx, agent.AgentID(), "count", []byte(`{"n":3}`), func(c json.RawMessage) error {
		got = append(got, string(c))
		return nil
	})
	if err != nil || len(got) < 2 || !strings.Contains(got[0], `"progress":1`) || !strings.Contains(got[len(got)-1], "counted 3") {
		t.Fatalf("count: %v %q", err, got)
	}

	// list_changed: the card gets the new tool, re-signed, and the caller
	// hears of it.
	seq := *agent.Card().Seq
	if _, err := caller.Invoke(ctx, agent.AgentID(), "grow", nil); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 20*time.Second, func() error {
		c := agent.Card()
		if !slices.Contains(toolNames(c), "grown") || *c.Seq <= seq {
			return fmt.Errorf("agent card seq %d tools %v", *c.Seq, toolNames(c))
		}
		if _, err := adp.DecodeVerified(c.Raw()); err != nil {
			return err
		}
		return nil
	})
	polltest.Until(t, 20*time.Second, func() error {
		rec, err := caller.LookupCard(ctx, agent.AgentID())
		if err != nil {
			return err
		}
		if !slices.Contains(toolNames(rec.Card), "grown") {
			return fmt.Errorf("caller holds seq %d with tools %v", *rec.Card.Seq, toolNames(rec.Card))
		}
		return nil
	})
	if res, err := caller.Invoke(ctx, agent.AgentID(), "grown", nil); err != nil || !strings.Contains(string(res.Body), "grown") {
		t.Fatalf("grown: %v %v", err, res)
	}
	if st := agent.Status().Agent; st == nil || st.State != mcpagent.StateRunning || st.Transport != "http" {
		t.Fatalf("status %+v", st)
	}
}

// TestMCPStdioServerRestarts: the test binary as a stdio server; killed,
// it is restarted, calls failing with BUSY meanwhile.
func TestMCPStdioServerRestarts(t *testing.T) {
	cmd, err := mcptest.Command()
	if err != nil {
		t.Fatal(err)
	}
	agent, caller := mcpPair(t, testNode{name: "stdio agent", agentMCPCommand: cmd})
	ctx := context.Background()
	echo := func() error {
		_, err := caller.Invoke(ctx, agent.AgentID(), "echo", []byte(`{"text":"hi"}`))
		return err
	}
	if err := echo(); err != nil {
		t.Fatal(err)
	}
	code, body := api(t, agent, "GET", "/v1/status", "")
	var st struct{ Agent mcpagent.Status }
	if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil || st.Agent.State != mcpagent.StateRunning || st.Agent.Transport != "stdio" || st.Agent.PID == 0 {
		t.Fatalf("/v1/status: %d %s", code, body)
	}
	if err := syscall.Kill(st.Agent.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var busy *aitp.Error
	polltest.Until(t, 30*time.Second, func() error {
		err := echo()
		if e := aitpError(err); err != nil && e.Status == aitp.StatusBusy && e.Code == mcpagent.CodeUnavailable {
			busy = e
		}
		if busy == nil {
			return fmt.Errorf("no BUSY call seen yet (last: %v)", err)
		}
		return err
	})
	if !strings.Contains(busy.Message, "MCP server") {
		t.Errorf("BUSY message %q does not say what is down", busy.Message)
	}
	now := agent.Status().Agent
	if now.State != mcpagent.StateRunning || now.Restarts < 1 || now.PID == st.Agent.PID || now.LastError == "" {
		t.Fatalf("status after the restart %+v", now)
	}
}

func TestConfigTakesOneAgent(t *testing.T) {
	base := node.Config{DataDir: t.TempDir()}
	for _, tc := range []struct {
		name string
		set  func(*node.Config)
		ok   bool
	}{
		{"command", func(c *node.Config) { c.AgentMCPCommand = "npx -y server" }, true},
		{"url", func(c *node.Config) { c.AgentMCPURL = "http://127.0.0.1:3000/mcp" }, true},
		{"two agents", func(c *node.Config) { c.AgentURL, c.AgentMCPCommand = "http://127.0.0.1:1", "server" }, false},
		{"bad quote", func(c *node.Config) { c.AgentMCPCommand = "server 'arg" }, false},
		{"bad url", func(c *node.Config) { c.AgentMCPURL = "ftp://host/mcp" }, false},
	} {
		c := base
		tc.set(&c)
		if err := c.Validate(); (err == nil) != tc.ok || (err != nil && !errors.Is(err, node.ErrInvalidConfig)) {
			t.Errorf("%s: Validate() = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
