package testnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// NodeStatus is GET /v1/status of a node.
type NodeStatus = nodeapi.Status

// apiClient talks to the nodes' HTTP APIs on loopback through
// httpapi.Client.
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

// client returns the API client of the node at base.
func (c *apiClient) client(base string) (*httpapi.Client, error) {
	cl, err := httpapi.NewClient(base, c.hc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNodeDown, err)
	}
	return cl, nil
}

// apiErr maps the client's errors to the testnet's: no answer is
// ErrNodeDown, an error answer (*httpapi.Error) also matches ErrAPI.
func apiErr(err error) error {
	var ae *httpapi.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, httpapi.ErrNoAnswer):
		return fmt.Errorf("%w: %v", ErrNodeDown, err)
	case errors.As(err, &ae):
		return fmt.Errorf("%w: %w", ErrAPI, err)
	}
	return fmt.Errorf("%w: %v", ErrAPI, err)
}

// do sends a request with an optional JSON body to the node at base and
// decodes a JSON answer into out (ignored when nil; a *json.RawMessage
// keeps it as it is).
func (c *apiClient) do(ctx context.Context, base, method, path string, body, out any) error {
	cl, err := c.client(base)
	if err != nil {
		return err
	}
	data, err := cl.Do(ctx, method, path, body)
	if err != nil {
		return apiErr(err)
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s%s: bad JSON answer: %v", ErrAPI, base, path, err)
	}
	return nil
}

func (c *apiClient) status(ctx context.Context, base string) (*NodeStatus, error) {
	cl, err := c.client(base)
	if err != nil {
		return nil, err
	}
	st, err := cl.Status(ctx)
	return st, apiErr(err)
}

// readAPIFile returns the API base URL a running node wrote into its data
// directory, or "" when there is none or it is not a loopback URL.
func readAPIFile(dataDir string) string {
	s, err := httpapi.ReadAPIFile(dataDir)
	if err != nil {
		return ""
	}
	if !strings.HasPrefix(s, "http://127.0.0.1:") && !strings.HasPrefix(s, "http://localhost:") && !strings.HasPrefix(s, "http://[::1]:") {
		return ""
	}
	return s
}

// errIsDown reports whether err means the node did not answer at all.
func errIsDown(err error) bool { return errors.Is(err, ErrNodeDown) }
