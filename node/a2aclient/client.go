package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Endpoint is an A2A JSON-RPC endpoint to call.
type Endpoint struct {
	// URL is the endpoint's http or https URL.
	URL string
	// ProtocolVersion is the A2A version the agent's card names for the
	// endpoint; "" means Version. A 0.x version makes the client use the
	// 0.3 method names from the start.
	ProtocolVersion string
}

// legacy reports whether the endpoint speaks A2A 0.x.
func (e Endpoint) legacy() bool { return strings.HasPrefix(e.ProtocolVersion, "0.") }

// Option configures a Client.
type Option func(*config)

type config struct {
	private  bool
	maxReply int64
	log      *slog.Logger
}

// WithPrivateAddresses lets the client call endpoints on loopback and
// private addresses (tests, a local network). Link-local and metadata
// addresses stay refused.
func WithPrivateAddresses(allow bool) Option { return func(c *config) { c.private = allow } }

// WithMaxReply bounds a reply, or the sum of a stream's events, in octets
// (default DefaultMaxReply).
func WithMaxReply(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxReply = n
		}
	}
}

// WithLogger sets the logger (default: discard). A misbehaving server is
// logged at Debug.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// Client calls A2A agents. It is safe for concurrent use; Close releases
// its idle connections and is idempotent.
type Client struct {
	cfg    config
	hc     *http.Client
	nextID atomic.Uint64
}

// dialTimeout bounds a connection attempt when the caller's context
// allows longer, so that an endpoint that does not answer leaves time
// for the next one.
const dialTimeout = 10 * time.Second

// New returns a Client.
func New(opts ...Option) *Client {
	cfg := config{maxReply: DefaultMaxReply, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	d := &net.Dialer{Timeout: dialTimeout, Control: control(cfg.private)}
	tr := &http.Transport{
		Proxy:                  nil, // the address checks apply to the agent, not to a proxy
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    dialTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
	hc := &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return fmt.Errorf("%w: the endpoint redirected the call", ErrBadReply)
		},
	}
	return &Client{cfg: cfg, hc: hc}
}

// Close releases idle connections. Calls under way are not interrupted
// (their contexts are).
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	return nil
}

// Send calls tool with the JSON arguments args on the agent at ep and
// returns the result as JSON (see package doc for the mapping). It sends
// SendMessage, or message/send when the card says the endpoint speaks 0.3
// or the server does not know the 1.0 method.
func (c *Client) Send(ctx context.Context, ep Endpoint, tool string, args json.RawMessage) (json.RawMessage, error) {
	u, err := checkURL(ep.URL, c.cfg.private)
	if err != nil {
		return nil, err
	}
	legacy := ep.legacy()
	result, err := c.rpc(ctx, u.String(), legacy, false, tool, args, nil)
	if !legacy && fallBack(err) {
		legacy = true
		result, err = c.rpc(ctx, u.String(), legacy, false, tool, args, nil)
	}
	if err != nil {
		return nil, err
	}
	ev, err := decodeEvent(result, legacy)
	if err != nil {
		return nil, err
	}
	return ev.final()
}

// fallBack reports whether err says the server does not speak A2A 1.0's
// method names: a 0.3 server answers "method not found" or "version not
// supported".
func fallBack(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && (re.Code == CodeMethodNotFound || re.Code == CodeVersionNotSupported)
}

// request builds the JSON-RPC request for a call of tool.
func (c *Client) request(legacy, stream bool, tool string, args json.RawMessage) (id string, body []byte, err error) {
	id = "adpnode-" + strconv.FormatUint(c.nextID.Add(1), 10)
	method := methodSend
	switch {
	case legacy && stream:
		method = legacyMethodStream
	case legacy:
		method = legacyMethodSend
	case stream:
		method = methodStream
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return "", nil, errors.New("a2a: the arguments are not valid JSON")
	}
	body, err = json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"method":  method,
		"params":  map[string]any{"message": newMessage(id, legacy, tool, args)},
	})
	return id, body, err
}

// rpc posts one JSON-RPC request and returns its result. With stream set
// it asks for an event stream and hands each event's result to onEvent;
// a JSON answer to a stream request (an error, or a server that answers
// a stream request with one reply) is returned as for a plain request.
func (c *Client) rpc(ctx context.Context, url string, legacy, stream bool, tool string, args json.RawMessage, onEvent func(json.RawMessage) (bool, error)) (json.RawMessage, error) {
	id, body, err := c.request(legacy, stream, tool, args)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefusedURL, err)
	}
	version := Version
	if legacy {
		version = LegacyVersion
	}
	req.Header.Set("Content-Type", mediaJSON)
	req.Header.Set(VersionHeader, version)
	req.Header.Set("Accept", mediaJSON)
	if stream {
		req.Header.Set("Accept", mediaSSE+", "+mediaJSON)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, url, err)
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if stream && ct == mediaSSE && resp.StatusCode/100 == 2 {
		return nil, c.readEvents(ctx, url, resp.Body, id, onEvent)
	}
	raw, err := readBounded(resp.Body, c.cfg.maxReply)
	if err != nil {
		return nil, c.readError(ctx, url, err)
	}
	result, rerr := decodeResponse(raw, id)
	var re *RemoteError
	switch {
	case resp.StatusCode/100 == 2 || errors.As(rerr, &re):
		if rerr != nil {
			c.cfg.log.Debug("a2a call failed", "method", tool, "err", rerr)
		}
		return result, rerr
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrUnreachable, url, resp.StatusCode)
	default:
		return nil, badReply("%s answered HTTP %d", url, resp.StatusCode)
	}
}

// transportError classifies a failed request: the caller's own deadline
// or cancellation as it is, a refused address, a refused redirect, or
// else the endpoint unreachable.
func (c *Client) transportError(ctx context.Context, url string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrRefusedURL), errors.Is(err, ErrBadReply):
		return err
	}
	c.cfg.log.Debug("a2a endpoint not reachable", "err", err)
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, url, netReason(err))
}

// readError classifies a failure while reading a reply.
func (c *Client) readError(ctx context.Context, url string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w: %s: the connection was lost during the reply", ErrUnreachable, url)
}

// netReason says why a connection failed in a few words.
func netReason(err error) string {
	var oe *net.OpError
	switch {
	case errors.As(err, &oe) && oe.Op == "dial":
		if errors.Is(err, context.DeadlineExceeded) || oe.Timeout() {
			return "the connection timed out"
		}
		return "the connection was refused or failed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "the host name did not resolve"
	}
	return "the connection failed"
}

// readBounded reads r to its end, failing with ErrTooLarge past max
// octets.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: %w: more than %d octets", ErrBadReply, ErrTooLarge, max)
	}
	return b, nil
}
