package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/internal/polltest"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/mcpserver"
)

// call calls a tool that must succeed and decodes its structured output.
func call(t *testing.T, c *client, params *mcp.CallToolParams, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", params.Name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", params.Name, text(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", params.Name, raw, err)
	}
}

// callErr calls a tool that must fail as a tool (isError), not as a
// protocol, and returns the error text.
func callErr(t *testing.T, c *client, name string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: succeeded, want a tool error", name, args)
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// unknownAgent is a well-formed agent id no node has.
func unknownAgent(t *testing.T) string {
	pid, err := peer.IDFromPrivateKey(cardtest.Key(t, 0x42))
	if err != nil {
		t.Fatal(err)
	}
	return adp.AgentID(pid)
}

func TestTools(t *testing.T) {
	a := startNode(t, "caller", []string{"test/caller"}, nil)
	b := startNode(t, "text reverser", []string{"text/reverse"}, addrsOf(a))
	holds(t, a, b.AgentID())
	for _, tc := range []struct {
		name      string
		transport func() mcp.Transport
	}{
		{"http", func() mcp.Transport { return httpTransport(a) }},
		{"stdio", func() mcp.Transport { return stdioTransport(t, a) }},
	} {
		t.Run(tc.name, func(t *testing.T) { checkTools(t, connect(t, tc.transport()), a, b) })
	}
}

func checkTools(t *testing.T, c *client, a, b *node.Node) {
	ctx := context.Background()
	tools, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil || len(tl.Description) < 80 {
			t.Errorf("tool %s: input schema %v, output schema %v, description %q", tl.Name, tl.InputSchema != nil, tl.OutputSchema != nil, tl.Description)
		}
	}
	slices.Sort(names)
	want := []string{mcpserver.ToolDescribe, mcpserver.ToolDiscover, mcpserver.ToolInvoke, mcpserver.ToolMyCard, mcpserver.ToolNetworkStatus, mcpserver.ToolRate, mcpserver.ToolUpdateMyCard}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	t.Run("network_status", func(t *testing.T) {
		var st mcpserver.StatusOutput
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolNetworkStatus}, &st)
		if st.AgentID != a.AgentID() || st.Peers < 1 || st.Cards < 1 {
			t.Fatalf("status %+v, want agent %s with peers and cards", st, a.AgentID())
		}
	})
	t.Run("discover_agents", func(t *testing.T) {
		var out mcpserver.DiscoverOutput
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolDiscover, Arguments: map[string]any{"query": "reverse a text", "tags": []string{"text/reverse"}, "scope": "local"}}, &out)
		i := slices.IndexFunc(out.Candidates, func(c mcpserver.Candidate) bool { return c.AgentID == b.AgentID() })
		if i < 0 {
			t.Fatalf("candidates %+v lack %s", out.Candidates, b.AgentID())
		}
		got := out.Candidates[i]
		if got.Score <= 0 || len(got.Evidence.MatchedTags) == 0 || !strings.Contains(got.HowToCall, b.AgentID()) ||
			!slices.ContainsFunc(got.Tools, func(tr mcpserver.ToolRef) bool { return tr.Name == demoagent.Reverse && tr.InputSchema != nil }) {
			t.Fatalf("candidate %+v: want a score, matched tags, how to call and the reverse tool with its schema", got)
		}
	})
	t.Run("describe_agent", func(t *testing.T) {
		var out struct {
			Card struct {
				ID    string `json:"id"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"card"`
		}
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolDescribe, Arguments: map[string]any{"agent": b.AgentID(), "fields": []string{"tools"}}}, &out)
		if out.Card.ID != b.AgentID() || len(out.Card.Tools) != len(demoagent.Tools()) {
			t.Fatalf("described %+v, want %s with %d tools", out.Card, b.AgentID(), len(demoagent.Tools()))
		}
	})
	t.Run("invoke_agent", func(t *testing.T) {
		var out struct {
			Result struct {
				Words int `json:"words"`
			} `json:"result"`
		}
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolInvoke, Arguments: map[string]any{"agent": b.AgentID(), "tool": demoagent.WordCount, "arguments": map[string]any{"text": "one two three"}}}, &out)
		if out.Result.Words != 3 {
			t.Fatalf("wordcount gave %d words, want 3", out.Result.Words)
		}
	})
	t.Run("invoke_agent streamed with progress", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: mcpserver.ToolInvoke, Arguments: map[string]any{"agent": b.AgentID(), "tool": demoagent.Reverse, "arguments": map[string]any{"text": "abc def ghi"}}}
		params.SetProgressToken("reverse-1")
		var out struct {
			Chunks []struct {
				Text string `json:"text"`
			} `json:"chunks"`
		}
		call(t, c, params, &out)
		var got []string
		for _, ch := range out.Chunks {
			got = append(got, ch.Text)
		}
		if want := []string{"ihg", "fed", "cba"}; !slices.Equal(got, want) {
			t.Fatalf("chunks %v, want %v", got, want)
		}
		polltest.Until(t, 10*time.Second, func() error {
			c.mu.Lock()
			defer c.mu.Unlock()
			var msgs []string
			for _, p := range c.progress {
				if p.ProgressToken == "reverse-1" {
					msgs = append(msgs, p.Message)
				}
			}
			if len(msgs) != 3 || !strings.Contains(msgs[0], "ihg") || !strings.Contains(msgs[2], "cba") {
				return &progressError{msgs}
			}
			return nil
		})
	})
	t.Run("unknown agent", func(t *testing.T) {
		id := unknownAgent(t)
		for tool, args := range map[string]map[string]any{
			mcpserver.ToolInvoke:   {"agent": id, "tool": demoagent.Echo},
			mcpserver.ToolDescribe: {"agent": id},
		} {
			msg := callErr(t, c, tool, args)
			if !strings.Contains(msg, tool+" failed") || !strings.Contains(msg, "not reachable") && !strings.Contains(msg, "not_found") {
				t.Errorf("%s of an unknown agent: %q, want a tool error saying it is not found or unreachable", tool, msg)
			}
			t.Logf("%s of an unknown agent: %s", tool, msg)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, bad := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{mcpserver.ToolRate, map[string]any{"agent": b.AgentID(), "stars": "five"}, "stars"},
			{mcpserver.ToolRate, map[string]any{"agent": b.AgentID(), "stars": 9}, "stars"},
			{mcpserver.ToolInvoke, map[string]any{"agent": b.AgentID()}, "tool"},
			{mcpserver.ToolInvoke, map[string]any{"agent": b.AgentID(), "tool": demoagent.WordCount, "arguments": map[string]any{"txt": "x"}}, "text"},
			{mcpserver.ToolDiscover, map[string]any{"query": "x", "limit": 5000}, "limit"},
			{mcpserver.ToolDiscover, map[string]any{"query": "x", "scope": "galaxy"}, "scope"},
			{mcpserver.ToolUpdateMyCard, map[string]any{}, "at least one"},
		} {
			if msg := callErr(t, c, bad.tool, bad.args); !strings.Contains(msg, bad.want) {
				t.Errorf("%s %v: %q does not name %q", bad.tool, bad.args, msg, bad.want)
			}
		}
	})
	t.Run("rate_agent", func(t *testing.T) {
		var out mcpserver.RateOutput
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolRate, Arguments: map[string]any{"agent": b.AgentID(), "stars": 4}}, &out)
		if out.Agent != b.AgentID() || out.Stars != 4 || out.RatingCount < 1 || out.RatingMean < 1 {
			t.Fatalf("rating %+v", out)
		}
	})
	t.Run("my_card and update_my_card", func(t *testing.T) {
		type card struct {
			ID          string   `json:"id"`
			Description string   `json:"description"`
			Skills      []string `json:"skills"`
			Signature   string   `json:"signature"`
		}
		var mine struct{ Card card }
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolMyCard}, &mine)
		if mine.Card.ID != a.AgentID() || mine.Card.Signature == "" {
			t.Fatalf("my_card %+v, want the signed card of %s", mine.Card, a.AgentID())
		}
		desc := "Calls other agents for " + t.Name()
		var upd struct{ Card card }
		call(t, c, &mcp.CallToolParams{Name: mcpserver.ToolUpdateMyCard, Arguments: map[string]any{"description": desc}}, &upd)
		if upd.Card.Description != desc || upd.Card.Signature == "" || upd.Card.Signature == mine.Card.Signature || !slices.Equal(upd.Card.Skills, mine.Card.Skills) {
			t.Fatalf("updated card %+v, want description %q, a new signature and the skills %v kept", upd.Card, desc, mine.Card.Skills)
		}
		if got := a.Card().Description; got != desc {
			t.Fatalf("node's card says %q, want %q", got, desc)
		}
	})
	t.Run("resources", func(t *testing.T) {
		tmpl, err := c.cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "adp://agents/{id}" {
			t.Fatalf("templates %+v, %v", tmpl, err)
		}
		polltest.Until(t, 10*time.Second, func() error { return listed(c, a.AgentID(), b.AgentID()) })
		for _, id := range []string{a.AgentID(), b.AgentID()} {
			res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AgentURI(id)})
			if err != nil {
				t.Fatalf("read %s: %v", mcpserver.AgentURI(id), err)
			}
			if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"id":"`+id+`"`) {
				t.Fatalf("read %s: %+v", id, res.Contents)
			}
		}
		if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AgentURI(unknownAgent(t))}); err == nil {
			t.Fatal("reading an unknown agent's card succeeded")
		}
	})
}

type progressError struct{ msgs []string }

func (e *progressError) Error() string {
	return "progress messages so far: " + strings.Join(e.msgs, " | ")
}
