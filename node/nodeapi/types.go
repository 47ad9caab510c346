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
	// Reachability is what the node knows of its reachability from the
	// Internet: ReachPublic, ReachPrivate or ReachUnknown.
	Reachability string `json:"reachability"`
	// RelayAddrs are the node's circuit relay addresses (a private node
	// with a relay reservation), each ending in /p2p/<peer id>.
	RelayAddrs []string `json:"relay_addrs"`
}

// Values of Status.Reachability and PeerInfo.Conns.
const (
	ReachPublic  = "public"
	ReachPrivate = "private"
	ReachUnknown = "unknown"
	ConnDirect   = "direct"
	ConnRelayed  = "relayed"
)

// PeerInfo describes a connected peer (GET /v1/peers).
type PeerInfo struct {
	PeerID    string   `json:"peer_id"`
	AgentID   string   `json:"agent_id"`
	Addrs     []string `json:"addrs"`
	Directory bool     `json:"directory"`
	// Conns says, for each address of Addrs, whether that connection is
	// ConnDirect or ConnRelayed (through a circuit relay).
	Conns []string `json:"conns"`
}

// InvokeResult is the reply of a tool call.
type InvokeResult struct {
	Body    json.RawMessage // the reply body (JSON, or a JSON string when the agent answered something else)
	Latency time.Duration
}
