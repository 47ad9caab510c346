package datadir

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

	"github.com/adpnode/adpnode/internal/atomicfile"
)

// AgentCardID reads dataDir/agentcard-id, the node's AgentCard agent_id:
// a ULID made once from now and crypto/rand, as the AgentCard draft asks,
// and kept across restarts. The first call creates the file
// (atomically). A file that holds no ULID is ErrCorrupt: the id is
// published, and silently minting another would change it.
func AgentCardID(dataDir string, now time.Time) (string, error) {
	path := filepath.Join(dataDir, AgentCardIDFile)
	raw, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(raw))
		if u, perr := ulid.ParseStrict(id); perr != nil || u.String() != id {
			return "", fmt.Errorf("%w: %s does not hold a ULID", ErrCorrupt, path)
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
