package node

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/internal/atomicfile"
)

// AgentCardIDFile holds, in the data directory, the node's AgentCard
// agent_id: a ULID made once from the clock and crypto/rand, as the
// AgentCard draft asks, and kept across restarts.
const AgentCardIDFile = "agentcard-id"

// loadAgentCardID reads dataDir/agentcard-id, creating it (atomically)
// the first time. A file that holds no ULID is an error: the id is
// published, and silently minting another would change it.
func loadAgentCardID(dataDir string, now time.Time) (string, error) {
	path := filepath.Join(dataDir, AgentCardIDFile)
	raw, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(raw))
		if u, perr := ulid.ParseStrict(id); perr != nil || u.String() != id {
			return "", fmt.Errorf("%w: %s does not hold a ULID", ErrInvalidConfig, path)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("node: read %s: %w", path, err)
	}
	u, err := ulid.New(ulid.Timestamp(now), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("node: new agentcard id: %w", err)
	}
	id := u.String()
	if err := atomicfile.Write(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("node: write %s: %w", path, err)
	}
	return id, nil
}

// AgentCardID returns the node's AgentCard agent_id (see AgentCardIDFile).
func (n *Node) AgentCardID() string { return n.agentCardID }

// SignA2A signs an A2A AgentCard with the node's key (bridge.SignA2A):
// the key that signs its ADP card vouches for its A2A card.
func (n *Node) SignA2A(card []byte) ([]byte, error) { return bridge.SignA2A(card, n.sk) }
