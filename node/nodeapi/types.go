package nodeapi

import (
	"encoding/json"
	"time"
)

// Status is the node's summary (GET /v1/status).
type Status struct {
	AgentID   string   `json:"agent_id"`
	PeerID    string   `json:"peer_id"`
	Name      string   `json:"name"`
	Addrs     []string `json:"addrs"` // full multiaddrs ending in /p2p/<peer id>
	Peers     int      `json:"peers"`
	Cards     int      `json:"cards"`
	Directory bool     `json:"directory"`
	APIURL    string   `json:"api_url,omitempty"`
	Seq       uint64   `json:"seq"`
	// Agent is the state of the MCP server behind the node, if any.
	Agent *AgentStatus `json:"agent,omitempty"`
}

// AgentStatus is the state of an MCP server behind the node
// (--agent-mcp-command or --agent-mcp-url).
type AgentStatus struct {
	Transport string `json:"transport"` // stdio, http or custom
	State     string `json:"state"`     // starting, running, restarting, closed
	Restarts  int    `json:"restarts"`  // reconnects (restarts of the command) tried since Start
	LastError string `json:"last_error,omitempty"`
	PID       int    `json:"pid,omitempty"` // of the running command
	Protocol  string `json:"protocol,omitempty"`
	Server    string `json:"server,omitempty"` // serverInfo name/version
	Tools     int    `json:"tools"`
}

// PeerInfo describes a connected peer (GET /v1/peers).
type PeerInfo struct {
	PeerID    string   `json:"peer_id"`
	AgentID   string   `json:"agent_id"`
	Addrs     []string `json:"addrs"`
	Directory bool     `json:"directory"`
}

// InvokeResult is the reply of a tool call.
type InvokeResult struct {
	Body    json.RawMessage // the reply body (JSON, or a JSON string when the agent answered something else)
	Latency time.Duration
}
