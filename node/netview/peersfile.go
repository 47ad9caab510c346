package netview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/adpnode/adpnode/internal/atomicfile"
	"github.com/adpnode/adpnode/node/httpapi"
)

// Peers file bounds.
const (
	// MaxNodes bounds the addresses of a peers file (package testnet's
	// largest network).
	MaxNodes = 200
	// maxPeersFile bounds the file's size.
	maxPeersFile = 64 << 10
)

// PeersFile is the JSON of a peers file: the base URLs of the local APIs
// of a testnet's nodes (http://127.0.0.1:PORT), in node order.
type PeersFile struct {
	APIs []string `json:"apis"`
}

// WritePeersFile writes the peers file at path, atomically: a View reads
// it on every aggregation, so a testnet rewrites it when a node restarts.
func WritePeersFile(path string, apis []string) error {
	if err := checkAPIs(apis); err != nil {
		return err
	}
	b, err := json.MarshalIndent(PeersFile{APIs: apis}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("netview: write peers file: %w", err)
	}
	return nil
}

// ReadPeersFile returns the addresses of the peers file at path. A
// missing file returns an error matching fs.ErrNotExist (the testnet has
// not written it yet); any other problem ErrPeersFile.
func ReadPeersFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPeersFile, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPeersFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPeersFile, err)
	}
	if len(b) > maxPeersFile {
		return nil, fmt.Errorf("%w: %s larger than %d bytes", ErrPeersFile, path, maxPeersFile)
	}
	var pf PeersFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPeersFile, path, err)
	}
	if err := checkAPIs(pf.APIs); err != nil {
		return nil, err
	}
	return pf.APIs, nil
}

// checkAPIs accepts at most MaxNodes loopback http base URLs.
func checkAPIs(apis []string) error {
	if len(apis) > MaxNodes {
		return fmt.Errorf("%w: %d addresses, at most %d", ErrPeersFile, len(apis), MaxNodes)
	}
	for _, a := range apis {
		u, err := url.Parse(a)
		if err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" ||
			!httpapi.IsLoopbackName(u.Hostname()) || u.Port() == "" {
			return fmt.Errorf("%w: %q is not a loopback http://HOST:PORT address", ErrPeersFile, a)
		}
	}
	return nil
}

// sameAPI reports whether two base URLs name the same API.
func sameAPI(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}
