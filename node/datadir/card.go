package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/internal/atomicfile"
)

// LoadCard reads and verifies dataDir/card.json, which must be the card
// of self (the key of identity.key).
func LoadCard(dataDir string, self peer.ID) (*adp.Card, error) {
	path := filepath.Join(dataDir, CardFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s missing (run adpnode init)", ErrNotInitialized, path)
	}
	if err != nil {
		return nil, fmt.Errorf("node: read card: %w", err)
	}
	c, err := adp.DecodeVerified(raw)
	if err != nil {
		return nil, fmt.Errorf("node: %s: %w", path, err)
	}
	if p, err := c.PeerID(); err != nil || p != self {
		return nil, fmt.Errorf("node: %s: card id %s does not match %s (%s)", path, c.ID, IdentityFile, adp.AgentID(self))
	}
	return c, nil
}

// WriteCard replaces dataDir/card.json with the signed card c, atomically.
func WriteCard(dataDir string, c *adp.Card) error {
	if c.Raw() == nil {
		return fmt.Errorf("node: write card: %w", adp.ErrUnsigned)
	}
	if err := atomicfile.Write(filepath.Join(dataDir, CardFile), c.Raw(), 0o644); err != nil {
		return fmt.Errorf("node: write card: %w", err)
	}
	return nil
}
