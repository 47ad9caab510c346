package nodeapi

import (
	"encoding/json"
	"time"
)

// Status is the node's summary (GET /v1/status).
type Status struct {
	AgentID string   `json:"agent_id"`
	PeerID  string   `json:"peer_id"`
	Name    string   `json:"name"`
	Addrs   []string `json:"addrs"` // full multiaddrs ending in /p2p/<peer id>
	Peers   int      `json:"peers"`
	Cards   int      `json:"cards"`
	// CardBytes is the encoded size of the held cards (their signed
	// JSON); CardBytesAvg the mean per card (0 with none).
	CardBytes    int64  `json:"card_bytes"`
	CardBytesAvg int64  `json:"card_bytes_avg"`
	Directory    bool   `json:"directory"`
	APIURL       string `json:"api_url,omitempty"`
	Seq          uint64 `json:"seq"`
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
