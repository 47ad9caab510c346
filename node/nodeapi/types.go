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
	CardBytes    int64 `json:"card_bytes"`
	CardBytesAvg int64 `json:"card_bytes_avg"`
	// MaxCards is the bound on the cards held (--max-cards).
	MaxCards  int    `json:"max_cards"`
	Directory bool   `json:"directory"`
	APIURL    string `json:"api_url,omitempty"`
	Seq       uint64 `json:"seq"`
	// Reachability is what the node knows of its reachability from the
	// Internet: ReachPublic, ReachPrivate or ReachUnknown.
	Reachability string `json:"reachability"`
	// RelayAddrs are the node's circuit relay addresses (a private node
	// with a relay reservation), each ending in /p2p/<peer id>.
	RelayAddrs []string `json:"relay_addrs"`
	// HolePunching says whether the node's DCUtR hole-punching service
	// has started: it has a public address to punch from and answers
	// peers' hole punches. Until then, and at most 10 s from its start,
	// the node refuses relayed connections, which go-libp2p would never
	// upgrade to direct ones.
	HolePunching bool `json:"hole_punching"`
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

// EventKind names one kind of Event (append only: the web view and other
// subscribers of GET /v1/events match on it).
type EventKind string

// Event kinds.
const (
	// EventCardUpserted: a card arrived or changed; Agent and Name are set.
	EventCardUpserted EventKind = "card.upserted"
	// EventCardRefreshed: a held card was received again, unchanged.
	EventCardRefreshed EventKind = "card.refreshed"
	// EventCardRemoved: a card was revoked or expired; Reason says which.
	EventCardRemoved EventKind = "card.removed"
	// EventPeerConnected and EventPeerDisconnected: Peer and Agent are set.
	EventPeerConnected    EventKind = "peer.connected"
	EventPeerDisconnected EventKind = "peer.disconnected"
	// EventResync: the subscriber fell behind and events were dropped; it
	// should read the state again (GET /v1/status, /v1/peers, /v1/cards).
	EventResync EventKind = "resync"
)

// Event is one change the node reports to subscribers (GET /v1/events).
type Event struct {
	Kind   EventKind `json:"kind"`
	Agent  string    `json:"agent,omitempty"`
	Peer   string    `json:"peer,omitempty"`
	Name   string    `json:"name,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}
