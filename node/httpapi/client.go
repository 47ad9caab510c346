package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/adpnode/adpnode/internal/jsonerr"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// Client limits.
const (
	// APIFileName is the file in a node's data directory that holds the
	// API's base URL while the node runs (for example
	// http://127.0.0.1:5001).
	APIFileName = "api"
	// maxAPIFile bounds the api file read from a data directory.
	maxAPIFile = 1024
	// MaxReply bounds an answer body a Client reads.
	MaxReply = 32 << 20
	// maxStreamLine bounds one line of a streamed answer.
	maxStreamLine = 1 << 20
)

// ErrNoAnswer means the API did not answer at all: nothing listens at the
// base URL, or the connection failed.
var ErrNoAnswer = errors.New("node API unreachable")

// APIFile returns the path of the api file in dataDir.
func APIFile(dataDir string) string { return filepath.Join(dataDir, APIFileName) }

// ReadAPIFile returns the base URL in dataDir's api file, without a
// trailing slash. It fails with an error matching os.ErrNotExist when no
// node runs there.
func ReadAPIFile(dataDir string) (string, error) {
	f, err := os.Open(APIFile(dataDir))
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAPIFile))
	if err != nil {
		return "", err
	}
	return strings.TrimRight(strings.TrimSpace(string(b)), "/"), nil
}

// NoAnswerError is a request the API did not answer: nothing listens at
// Base (Refused), the answer did not come within the deadline (TimedOut:
// a stopped or overloaded node, or an address that accepts and never
// answers), or the connection failed otherwise. It matches ErrNoAnswer.
type NoAnswerError struct {
	Base     string
	Refused  bool
	TimedOut bool
	Within   time.Duration // the deadline, when known
	Err      error
}

func (e *NoAnswerError) Error() string {
	switch {
	case e.Refused:
		return fmt.Sprintf("no node answers at %s (connection refused)", e.Base)
	case e.TimedOut && e.Within > 0:
		return fmt.Sprintf("the node at %s did not answer within %s (is it stopped, overloaded, or not an adpnode API?)", e.Base, e.Within)
	case e.TimedOut:
		return fmt.Sprintf("the node at %s did not answer in time (is it stopped, overloaded, or not an adpnode API?)", e.Base)
	}
	var ue *url.Error
	if errors.As(e.Err, &ue) {
		return fmt.Sprintf("cannot reach the node at %s: %v", e.Base, ue.Err)
	}
	return fmt.Sprintf("cannot reach the node at %s: %v", e.Base, e.Err)
}

// Unwrap returns ErrNoAnswer and the transport's error.
func (e *NoAnswerError) Unwrap() []error { return []error{ErrNoAnswer, e.Err} }

// noAnswer classifies a transport failure.
func (c *Client) noAnswer(ctx context.Context, err error) error {
	e := &NoAnswerError{Base: c.base, Err: err, Within: c.hc.Timeout}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Refused = true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		e.TimedOut = true
		if dl, ok := ctx.Deadline(); ok && (e.Within == 0 || time.Until(dl) < e.Within) {
			e.Within = 0
		}
	}
	return e
}

// Client is a typed client of a node's HTTP API. Answers other than 2xx
// are returned as *Error; a failure to reach the API wraps ErrNoAnswer.
// A Client is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
}

// NewClient returns a client of the API at base (http or https with a
// host), sending its requests with hc (nil: http.DefaultClient).
func NewClient(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bad API URL %q", base)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimSuffix(base, "/"), hc: hc}, nil
}

// Base returns the API's base URL.
func (c *Client) Base() string { return c.base }

// send sends a request with in as JSON body (nil for none; []byte and
// json.RawMessage are sent as they are) and returns the answer; an answer
// other than 2xx is read and returned as *Error.
func (c *Client) send(ctx context.Context, method, path string, in any) (*http.Response, error) {
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
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.noAnswer(ctx, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, MaxReply))
		e := &Error{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Code == "" {
			e.Code, e.Message = "http_error", string(bytes.TrimSpace(raw))
		}
		return nil, e
	}
	return resp, nil
}

// Do sends a request (see send for in) and returns the body of a 2xx
// answer, at most MaxReply bytes.
func (c *Client) Do(ctx context.Context, method, path string, in any) ([]byte, error) {
	resp, err := c.send(ctx, method, path, in)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	if err != nil {
		return nil, c.noAnswer(ctx, err)
	}
	if len(raw) > MaxReply {
		return nil, fmt.Errorf("%s %s: answer larger than %d bytes", method, path, MaxReply)
	}
	return raw, nil
}

// call is Do decoding the answer into out.
func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	raw, err := c.Do(ctx, method, path, in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		at, msg := jsonerr.Describe(err)
		return fmt.Errorf("%s %s: the node's answer is not what this client expects (at %q: %s)", method, path, at, msg)
	}
	return nil
}

// Status returns GET /v1/status.
func (c *Client) Status(ctx context.Context) (*nodeapi.Status, error) {
	var st nodeapi.Status
	if err := c.call(ctx, http.MethodGet, "/v1/status", nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Peers returns GET /v1/peers.
func (c *Client) Peers(ctx context.Context) ([]nodeapi.PeerInfo, error) {
	var out PeersResponse
	if err := c.call(ctx, http.MethodGet, "/v1/peers", nil, &out); err != nil {
		return nil, err
	}
	return out.Peers, nil
}

// Arrivals returns GET /v1/arrivals: the node's first arrival of each
// card version it remembers, of the given agents only when any is given
// (at most MaxArrivalAgents).
func (c *Client) Arrivals(ctx context.Context, agents ...string) ([]nodeapi.Arrival, error) {
	q := url.Values{"agent": agents}
	path := "/v1/arrivals"
	if len(agents) > 0 {
		path += "?" + q.Encode()
	}
	var out nodeapi.Arrivals
	if err := c.call(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return out.Arrivals, nil
}

// Network returns GET /v1/network.
func (c *Client) Network(ctx context.Context) (*nodeapi.Network, error) {
	var out nodeapi.Network
	if err := c.call(ctx, http.MethodGet, "/v1/network", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cards returns GET /v1/cards: the first page of the held cards.
func (c *Client) Cards(ctx context.Context) (*CardList, error) {
	var out CardList
	if err := c.call(ctx, http.MethodGet, "/v1/cards", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Stream posts in to path and calls fn with each line of the streamed
// (NDJSON) answer as it arrives. A final {"error": {...}} line is
// returned as *Error with the answer's HTTP status.
func (c *Client) Stream(ctx context.Context, path string, in any, fn func(line []byte) error) error {
	resp, err := c.send(ctx, http.MethodPost, path, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxStreamLine)
	for sc.Scan() {
		line := sc.Bytes()
		var final struct {
			Error *Error `json:"error"`
		}
		if json.Unmarshal(line, &final) == nil && final.Error != nil && final.Error.Code != "" {
			final.Error.Status = resp.StatusCode
			return final.Error
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	return sc.Err()
}
