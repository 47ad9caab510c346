package testnet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/adpnode/adpnode/node/netview"
)

// Files and directories of a process testnet inside its directory.
const (
	// ManifestFile records the testnet: binary, nodes, process ids.
	ManifestFile = "testnet.json"
	// BinDir holds the copy of the adpnode executable the nodes run.
	BinDir = "bin"
	// NodeDirPrefix names each node's data directory: node-0, node-1...
	NodeDirPrefix = "node-"
	// LogFile is each node's log inside its data directory.
	LogFile = "node.log"
	// PeersFile lists the local API addresses of the running nodes
	// (package node/netview), which every node reads through
	// --testnet-peers to show the whole testnet's connections.
	PeersFile = "testnet-peers.json"
	// manifestVersion is the manifest format; bump on incompatible change.
	manifestVersion = 1
	// maxManifestSize bounds the manifest read back from disk.
	maxManifestSize = 16 << 20
)

// Manifest is the JSON record of a process testnet (DIR/testnet.json).
type Manifest struct {
	Version   int        `json:"version"`
	CreatedAt time.Time  `json:"created_at"`
	Binary    string     `json:"binary"`
	Env       []string   `json:"env,omitempty"`
	Nodes     []NodeInfo `json:"nodes"`
}

// NodeInfo describes one node of a process testnet.
type NodeInfo struct {
	Index     int      `json:"index"`
	Name      string   `json:"name"`
	AgentID   string   `json:"agent_id"`
	PeerID    string   `json:"peer_id,omitempty"`
	Skills    []string `json:"skills"`
	DataDir   string   `json:"data_dir"`
	Log       string   `json:"log"`
	PID       int      `json:"pid"`
	Bootstrap bool     `json:"bootstrap,omitempty"`
	Directory bool     `json:"directory,omitempty"`
	// Args are the arguments of `adpnode run`, kept to restart the node.
	Args []string `json:"args"`
	// Addrs are the node's full listen multiaddrs once it was up; a
	// restarted node listens on the same ports again.
	Addrs []string `json:"addrs,omitempty"`
	// API is the node's HTTP API base URL when it was last seen up.
	API string `json:"api,omitempty"`
}

func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s missing", ErrNotRunning, path)
	}
	if err != nil {
		return nil, fmt.Errorf("testnet: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("testnet: %w", err)
	}
	if st.Size() > maxManifestSize {
		return nil, fmt.Errorf("testnet: %s larger than %d bytes", path, maxManifestSize)
	}
	var m Manifest
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("testnet: %s: %w", path, err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("testnet: %s: version %d, want %d", path, m.Version, manifestVersion)
	}
	for i, n := range m.Nodes {
		if n.Index != i {
			return nil, fmt.Errorf("testnet: %s: nodes[%d] has index %d", path, i, n.Index)
		}
	}
	return &m, nil
}

// writeManifest replaces DIR/testnet.json atomically.
func writeManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("testnet: encode manifest: %w", err)
	}
	data = append(data, '\n')
	path := filepath.Join(dir, ManifestFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("testnet: write manifest: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("testnet: write manifest: %w", err)
	}
	return nil
}

// ownedEntry reports whether name is something a testnet creates in its
// directory, so that `up` may replace it and `down` may remove it.
func ownedEntry(name string) bool {
	switch name {
	case ManifestFile, ManifestFile + ".tmp", BinDir, PeersFile:
		return true
	}
	if strings.HasPrefix(name, "."+PeersFile+".tmp") { // atomicfile's, left by a crash
		return true
	}
	if rest, ok := strings.CutPrefix(name, NodeDirPrefix); ok {
		_, err := strconv.Atoi(rest)
		return err == nil
	}
	return false
}

// clearDir removes the testnet's own entries from dir. It refuses, before
// removing anything, when dir holds anything else.
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("testnet: %w", err)
	}
	for _, e := range entries {
		if !ownedEntry(e.Name()) {
			return fmt.Errorf("%w: %s", ErrNotOurs, filepath.Join(dir, e.Name()))
		}
	}
	var errs []error
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writePeersFile writes dir's PeersFile: the API addresses of the nodes
// that serve one.
func writePeersFile(dir string, apis []string) error {
	if err := netview.WritePeersFile(filepath.Join(dir, PeersFile), apis); err != nil {
		return fmt.Errorf("testnet: %w", err)
	}
	return nil
}
