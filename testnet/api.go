package testnet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits of the node API client.
const (
	// maxAPIResponse bounds a response body read from a node.
	maxAPIResponse = 32 << 20
	// maxAPIFile bounds the api file read from a data directory.
	maxAPIFile = 1024
	// apiFileName is the file in which a running node publishes its API
	// base URL (see node.APIFile).
	apiFileName = "api"
)

// NodeStatus is GET /v1/status of a node.
type NodeStatus struct {
	AgentID   string   `json:"agent_id"`
	PeerID    string   `json:"peer_id"`
	Name      string   `json:"name"`
	Addrs     []string `json:"addrs"`
	Peers     int      `json:"peers"`
	Cards     int      `json:"cards"`
	Directory bool     `json:"directory"`
}

// APIError is an error answer of a node's HTTP API: the discovery
// profile's error model and the HTTP status. It matches ErrAPI.
type APIError struct {
	HTTPStatus int    `json:"-"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Path       string `json:"path,omitempty"`
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("node API: %d %s: %s", e.HTTPStatus, e.Code, e.Message)
	if e.Path != "" {
		s += " (at " + e.Path + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrAPI) true.
func (e *APIError) Is(target error) bool { return target == ErrAPI }

// apiClient talks to the nodes' HTTP APIs on loopback.
type apiClient struct{ hc *http.Client }

func newAPIClient() *apiClient {
	tr := &http.Transport{
		Proxy:               nil, // loopback only; never through a proxy
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}
	return &apiClient{hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (c *apiClient) close() { c.hc.CloseIdleConnections() }

// do sends a request with an optional JSON body and decodes a JSON answer
// into out (ignored when nil).
func (c *apiClient) do(ctx context.Context, method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("testnet: encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("testnet: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNodeDown, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIResponse+1))
	if err != nil {
		return fmt.Errorf("%w: read %s: %v", ErrNodeDown, url, err)
	}
	if len(data) > maxAPIResponse {
		return fmt.Errorf("%w: %s: answer larger than %d bytes", ErrAPI, url, maxAPIResponse)
	}
	if resp.StatusCode/100 != 2 {
		ae := &APIError{HTTPStatus: resp.StatusCode}
		if json.Unmarshal(data, ae) != nil || ae.Code == "" {
			ae.Code = http.StatusText(resp.StatusCode)
			ae.Message = strings.TrimSpace(string(data))
		}
		return ae
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s: bad JSON answer: %v", ErrAPI, url, err)
	}
	return nil
}

func (c *apiClient) status(ctx context.Context, base string) (*NodeStatus, error) {
	var st NodeStatus
	if err := c.do(ctx, http.MethodGet, base+"/v1/status", nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// readAPIFile returns the API base URL a running node wrote into its data
// directory, or "" when there is none.
func readAPIFile(dataDir string) string {
	f, err := os.Open(filepath.Join(dataDir, apiFileName))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAPIFile))
	if err != nil {
		return ""
	}
	s := strings.TrimRight(strings.TrimSpace(string(b)), "/")
	if !strings.HasPrefix(s, "http://127.0.0.1:") && !strings.HasPrefix(s, "http://localhost:") && !strings.HasPrefix(s, "http://[::1]:") {
		return ""
	}
	return s
}

// errIsDown reports whether err means the node did not answer at all.
func errIsDown(err error) bool { return errors.Is(err, ErrNodeDown) }
