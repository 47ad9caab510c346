package node

import (
	"context"
	"encoding/json"
)

// CallTool calls tool of the node's own agent with args and hands the
// reply to fn: whole, or chunk by chunk when stream is set and the agent
// streams. The call is the AITP request a peer would send (the caller is
// the node's own peer), served in-process by the handler that answers
// peers (package node/toolserver). Failures are *aitp.Error. It is the
// a2aserver.Agent the node's A2A server calls.
func (n *Node) CallTool(ctx context.Context, tool string, args []byte, stream bool, fn func(chunk json.RawMessage) error) error {
	return n.tools.Call(ctx, tool, args, stream, fn)
}
