package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node"
	"github.com/adpnode/adpnode/node/httpapi"
)

// apiFlags locate a running node: --api-url, or the api file in --data-dir
// (default $ADPNODE_DATA_DIR, then ~/.adpnode).
type apiFlags struct {
	dataDir string
	apiURL  string
	json    bool
}

func (f *apiFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "data directory of the running node (default $ADPNODE_DATA_DIR or ~/.adpnode)")
	cmd.Flags().StringVar(&f.apiURL, "api-url", "", "base URL of the node's HTTP API (overrides --data-dir)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON instead of a table")
}

// defaultDataDir is $ADPNODE_DATA_DIR, else ~/.adpnode.
func defaultDataDir() string {
	if d := os.Getenv(node.EnvDataDir); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".adpnode")
	}
	return ".adpnode"
}

// client returns an API client for the node the flags name.
func (f *apiFlags) client() (*httpapi.Client, error) {
	base := f.apiURL
	if base == "" {
		dir := f.dataDir
		if dir == "" {
			dir = defaultDataDir()
		}
		var err error
		base, err = httpapi.ReadAPIFile(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no running node in %s (no api file; start one with adpnode run --data-dir %s, or pass --api-url)", dir, dir)
		}
		if err != nil {
			return nil, err
		}
	}
	return httpapi.NewClient(base, &http.Client{Timeout: 2 * time.Minute})
}

// printJSON writes raw JSON indented.
func printJSON(w io.Writer, raw []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		_, err = io.WriteString(w, termtext.Escape(string(raw)))
		return err
	}
	buf.WriteByte('\n')
	_, err := w.Write(termtext.EscapeJSON(buf.Bytes()))
	return err
}
