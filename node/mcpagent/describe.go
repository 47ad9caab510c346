package mcpagent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// Describe connects to the server once and returns the template of a card
// for it, from its initialize answer and its tool list: name (serverInfo
// title, else name), version, description (the instructions, else a line
// naming the server), the tools and the bridge's extensions["mcp"]. The
// card has no id: Init sets it. The opts are those of New.
func Describe(ctx context.Context, opts ...Option) (*adp.Card, error) {
	a, err := New(opts...)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	sess, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	return a.card(), nil
}

// card builds the card template from the current session's answers.
func (a *Agent) card() *adp.Card {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &adp.Card{Tools: append([]adp.Tool(nil), a.list...)}
	if a.init != nil {
		if si := a.init.ServerInfo; si != nil {
			c.Name, c.Version = si.Name, si.Version
			if si.Title != "" {
				c.Name = si.Title
			}
		}
		c.Description = strings.TrimSpace(a.init.Instructions)
	}
	if c.Description == "" && c.Name != "" {
		c.Description = "MCP server " + c.Name
	}
	if a.listJSON != nil {
		if _, ext, err := ToolsFromMCP(a.listJSON); err == nil && ext != nil {
			c.Extensions = map[string]json.RawMessage{bridge.NamespaceMCP: ext}
		}
	}
	return c
}
