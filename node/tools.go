package node

import (
	"context"
	"slices"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/service"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/demoagent"
)

// registerTools registers an AITP handler for every tool of c not yet
// registered. A handler serves only while its tool is on the current card,
// so removing a tool from the card takes effect at once.
func (n *Node) registerTools(c *adp.Card) {
	n.mu.Lock()
	var fresh []string
	for _, t := range c.Tools {
		if !aitp.ValidMethod(t.Name) {
			n.log.Warn("tool name cannot be an AITP method (spaces or control characters); not served", "method", t.Name)
			continue
		}
		if !n.tools[t.Name] && !isADPMethod(t.Name) {
			n.tools[t.Name] = true
			fresh = append(fresh, t.Name)
		}
	}
	n.mu.Unlock()
	for _, name := range fresh {
		n.server.HandleFunc(name, n.serveTool)
	}
}

func isADPMethod(m string) bool {
	return m == service.MethodDescribe || m == service.MethodAdvertise || m == service.MethodDiscover
}

// serveTool answers a tool call from another agent: the demo agent or the
// agent's HTTP server serves it; a tool with no agent behind it, or one no
// longer on the card, answers NOT_FOUND.
func (n *Node) serveTool(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) (err error) {
	defer func() {
		st := aitp.StatusOK
		if err != nil {
			st = aitp.StatusError
			if s, ok := aitp.StatusOf(err); ok {
				st = s
			}
		}
		// r.Method has a handler registered: a closed set.
		n.metrics.Served.WithLabelValues(r.Method, st.Label()).Inc()
	}()
	onCard := slices.ContainsFunc(n.Card().Tools, func(t adp.Tool) bool { return t.Name == r.Method })
	switch {
	case !onCard:
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool %q on this agent's card", r.Method)
	case n.cfg.DemoAgent && demoagent.Serves(r.Method):
		return demoagent.Call(ctx, w, r)
	case n.agent != nil:
		return n.agent.Call(ctx, w, r, adp.AgentID(r.Remote))
	default:
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no agent serves tool %q", r.Method)
	}
}
