package nodeapi

import "time"

// Arrival is a node's record of the first time it held one version of a
// card (GET /v1/arrivals): a card of another agent that its intake
// stored, or its own card when it published that version.
type Arrival struct {
	Agent string    `json:"agent"`
	Seq   uint64    `json:"seq"`
	At    time.Time `json:"at"`
	// Source is how the version arrived (gossip, dht, advertise...), or
	// "self" for the node's own publication of its card.
	Source string `json:"source"`
}

// Arrivals is the answer of GET /v1/arrivals.
type Arrivals struct {
	Arrivals []Arrival `json:"arrivals"`
}

// Values of Network.Scope.
const (
	// ScopeLocal: the node reports itself and its own connections only;
	// no peer says whom it is connected to.
	ScopeLocal = "local"
	// ScopeTestnet: the node read the status of every node of its
	// testnet through their local APIs (loopback, same machine).
	ScopeTestnet = "testnet"
)

// Network is what a node knows of the network's connections
// (GET /v1/network): the nodes it read, the links between them and, on
// a testnet, how long each node's card took to reach each other node.
type Network struct {
	Scope string        `json:"scope"`
	Nodes []NetworkNode `json:"nodes"`
	// Links are the connections the nodes report, one per pair, in
	// agent id order.
	Links []Link `json:"links"`
	// Travel has one entry per card version of the nodes (their current
	// cards), in node order; empty in ScopeLocal.
	Travel []CardTravel `json:"travel"`
	// At is when the node put this answer together.
	At time.Time `json:"at"`
}

// NetworkNode is one node of a Network: its status as it reported it,
// or why it could not be read.
type NetworkNode struct {
	AgentID   string `json:"agent_id,omitempty"`
	PeerID    string `json:"peer_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Directory bool   `json:"directory"`
	Seq       uint64 `json:"seq"`
	Peers     int    `json:"peers"`
	// API is the base URL the node was read from ("" for the node that
	// answers).
	API string `json:"api,omitempty"`
	// Error says why the node could not be read; the other fields but
	// API are then empty.
	Error string `json:"error,omitempty"`
}

// Link is a connection between two agents. ReportedBy lists the ends
// that report it among the nodes read: a link both ends report is
// confirmed; one reported by a single end is that end's word only (the
// other end was not read, or no longer sees it).
type Link struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	ReportedBy []string `json:"reported_by"`
	// Relayed: every reporting end reaches the other through a relay.
	Relayed bool `json:"relayed"`
}

// CardTravel is how one card version spread: when its owner published
// it, by the owner's record, and when each node first held it, by that
// node's record. Times come from each node's own clock: comparable on a
// testnet, where every node runs on one machine.
type CardTravel struct {
	Agent       string     `json:"agent"`
	Name        string     `json:"name"`
	Seq         uint64     `json:"seq"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	// Arrivals has one entry per node that holds this version, in node
	// order; a node that does not hold it yet has none.
	Arrivals []Travel `json:"arrivals"`
}

// Travel is one node's arrival of a card version.
type Travel struct {
	Node   string    `json:"node"` // the agent id of the node
	At     time.Time `json:"at"`
	Source string    `json:"source"`
	// AfterMS is At minus the publication time in milliseconds; absent
	// when the owner has no record of publishing this version (it
	// restarted since, or was not read).
	AfterMS *float64 `json:"after_ms,omitempty"`
}
