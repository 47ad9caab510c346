package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/adpnode/adpnode/internal/termtext"
	"github.com/adpnode/adpnode/node"
)

// maxAPIReply bounds what the CLI reads from a node's API.
const maxAPIReply = 32 << 20

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
func (f *apiFlags) client() (*apiClient, error) {
	base := f.apiURL
	if base == "" {
		dir := f.dataDir
		if dir == "" {
			dir = defaultDataDir()
		}
		raw, err := os.ReadFile(node.APIFile(dir))
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no running node in %s (no api file; start one with adpnode run --data-dir %s, or pass --api-url)", dir, dir)
		}
		if err != nil {
			return nil, err
		}
		base = strings.TrimSpace(string(raw))
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bad API URL %q", base)
	}
	return &apiClient{base: strings.TrimSuffix(base, "/"), http: &http.Client{Timeout: 2 * time.Minute}}, nil
}

// apiClient talks to a node's HTTP API.
type apiClient struct {
	base string
	http *http.Client
}

// apiError is an error answered by the API, in the discovery profile's
// error model.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

func (e *apiError) Error() string {
	s := fmt.Sprintf("%s (HTTP %d)", e.Code, e.Status)
	if e.Path != "" {
		s += " at " + e.Path
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// do sends a request with in as JSON body (nil for none) and returns the
// raw reply body of a 2xx answer; any other answer is an *apiError.
func (c *apiClient) do(ctx context.Context, method, path string, in any) ([]byte, error) {
	var body io.Reader
	if in != nil {
		var b []byte
		switch v := in.(type) {
		case []byte:
			b = v
		case json.RawMessage:
			b = v
		default:
			var err error
			if b, err = json.Marshal(in); err != nil {
				return nil, err
			}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node API unreachable: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIReply))
	if err != nil {
		return nil, fmt.Errorf("reading API reply: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		e := &apiError{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Code == "" {
			e.Code, e.Message = "http_error", strings.TrimSpace(string(raw))
		}
		return nil, e
	}
	return raw, nil
}

// getJSON decodes a 2xx reply into out.
func (c *apiClient) getJSON(ctx context.Context, method, path string, in, out any) error {
	raw, err := c.do(ctx, method, path, in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding API reply: %w", err)
	}
	return nil
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
