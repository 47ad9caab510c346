package node

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/demoagent"
	"github.com/adpnode/adpnode/node/httpagent"
	"github.com/adpnode/adpnode/node/mcpagent"
)

// toolAgent serves the card's tools that the node does not serve itself:
// the agent's HTTP server (package httpagent) or an MCP server (package
// mcpagent, whose tool list becomes the card's).
type toolAgent interface {
	Call(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request, caller string) error
	Close() error
}

// newAgent builds the agent cfg names (Validate allows one at most), or
// returns nil.
func (n *Node) newAgent() (toolAgent, error) {
	var opt mcpagent.Option
	switch {
	case n.cfg.AgentURL != "":
		a, err := httpagent.New(n.cfg.AgentURL)
		if err != nil {
			return nil, fmt.Errorf("%w: agent_url: %w", ErrInvalidConfig, err)
		}
		return a, nil
	case n.cfg.AgentMCPCommand != "":
		argv, err := mcpagent.SplitCommand(n.cfg.AgentMCPCommand)
		if err != nil {
			return nil, err
		}
		opt = mcpagent.Command(argv...)
	case n.cfg.AgentMCPURL != "":
		opt = mcpagent.URL(n.cfg.AgentMCPURL)
	default:
		return nil, nil
	}
	a, err := mcpagent.New(opt, mcpagent.Logger(n.log), mcpagent.OnToolsChanged(n.setAgentTools))
	if err != nil {
		return nil, err
	}
	return a, nil
}

// startAgent connects the MCP server, if there is one; its tools reach the
// card through setAgentTools before it returns.
func (n *Node) startAgent(ctx context.Context) error {
	if m, ok := n.agent.(*mcpagent.Agent); ok {
		return m.Start(ctx)
	}
	return nil
}

// setAgentTools makes the MCP server's tools the card's tools (the demo
// tools stay, see owncard.Shape) and keeps what the bridge could not put on
// them in extensions["mcp"]; UpdateCard re-signs and re-publishes.
func (n *Node) setAgentTools(tools []adp.Tool, ext json.RawMessage) {
	old := n.Card()
	probe := old.Clone()
	probe.Tools = tools
	n.own.Shape(probe)
	if reflect.DeepEqual(probe.Tools, old.Tools) && string(ext) == string(old.Extensions[bridge.NamespaceMCP]) {
		return
	}
	err := n.UpdateCard(n.ctx, func(c *adp.Card) {
		c.Tools = tools
		switch {
		case ext != nil && c.Extensions == nil:
			c.Extensions = map[string]json.RawMessage{bridge.NamespaceMCP: ext}
		case ext != nil:
			c.Extensions[bridge.NamespaceMCP] = ext
		default:
			delete(c.Extensions, bridge.NamespaceMCP)
		}
	})
	if err != nil {
		n.log.Warn("card update with the MCP server's tools", "err", err)
		return
	}
	n.log.Info("card updated with the MCP server's tools", "tools", len(tools))
}

// agentStatus is the MCP server's state for Status, or nil.
func (n *Node) agentStatus() *mcpagent.Status {
	m, ok := n.agent.(*mcpagent.Agent)
	if !ok {
		return nil
	}
	st := m.Status()
	return &st
}

// The demo agent's tool names, kept for importers of earlier releases.
//
// Deprecated: use package node/demoagent.
const (
	DemoEcho      = demoagent.Echo
	DemoWordCount = demoagent.WordCount
	DemoReverse   = demoagent.Reverse
)

// DemoTools returns the demo agent's card entries.
//
// Deprecated: use demoagent.Tools.
func DemoTools() []adp.Tool { return demoagent.Tools() }
