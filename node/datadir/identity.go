package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// Files and directories inside a data directory.
const (
	IdentityFile    = "identity.key" // libp2p MarshalPrivateKey bytes, mode 0600
	CardFile        = "card.json"    // the signed card
	AgentCardIDFile = "agentcard-id" // the AgentCard agent_id, a ULID
	StoreDir        = "store"        // Badger (package store)
	maxKeyFile      = 4096
)

// CreateIdentity writes a fresh Ed25519 key to dataDir/identity.key,
// creating dataDir if need be and refusing to overwrite an existing key.
func CreateIdentity(dataDir string) (crypto.PrivKey, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("node: create data dir: %w", err)
	}
	sk, _, err := crypto.GenerateEd25519Key(nil)
	if err != nil {
		return nil, fmt.Errorf("node: generate key: %w", err)
	}
	raw, err := crypto.MarshalPrivateKey(sk)
	if err != nil {
		return nil, fmt.Errorf("node: marshal key: %w", err)
	}
	path := filepath.Join(dataDir, IdentityFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: %s exists", ErrAlreadyInitialized, path)
	}
	if err != nil {
		return nil, fmt.Errorf("node: write key: %w", err)
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("node: write key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("node: write key: %w", err)
	}
	return sk, f.Close()
}

// LoadIdentity reads dataDir/identity.key. The file must be Ed25519 and
// readable by its owner only.
func LoadIdentity(dataDir string) (crypto.PrivKey, error) {
	path := filepath.Join(dataDir, IdentityFile)
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s missing (run adpnode init)", ErrNotInitialized, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadIdentity, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s is mode %o, want 0600", ErrBadIdentity, path, st.Mode().Perm())
	}
	if st.Size() > maxKeyFile {
		return nil, fmt.Errorf("%w: %s too large", ErrBadIdentity, path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadIdentity, err)
	}
	sk, err := crypto.UnmarshalPrivateKey(raw)
	if err != nil {
		// The decoder speaks protobuf; the user needs the file's name.
		return nil, fmt.Errorf("%w: %s is not an adpnode key (create one with adpnode init or adpnode key new)", ErrBadIdentity, path)
	}
	if sk.Type() != crypto.Ed25519 {
		return nil, fmt.Errorf("%w: %s: key type %v, want Ed25519", ErrBadIdentity, path, sk.Type())
	}
	return sk, nil
}
