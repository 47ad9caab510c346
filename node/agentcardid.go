package node

import (
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/datadir"
)

// AgentCardIDFile holds, in the data directory, the node's AgentCard
// agent_id (datadir.AgentCardID).
const AgentCardIDFile = datadir.AgentCardIDFile

// AgentCardID returns the node's AgentCard agent_id (see AgentCardIDFile).
func (n *Node) AgentCardID() string { return n.agentCardID }

// SignA2A signs an A2A AgentCard with the node's key (bridge.SignA2A):
// the key that signs its ADP card vouches for its A2A card.
func (n *Node) SignA2A(card []byte) ([]byte, error) { return bridge.SignA2A(card, n.sk) }
