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

	"github.com/adpnode/adpnode/internal/netguard"
	"github.com/adpnode/adpnode/node/a2awire"
)

// Endpoint is an A2A JSON-RPC endpoint to call.
type Endpoint struct {
	// URL is the endpoint's http or https URL.
	URL string
	// ProtocolVersion is the A2A version the agent's card names for the
	// endpoint; "" means a2awire.Version10. A 0.x version makes the
	// client use 0.3 method names from the start.
	ProtocolVersion string
	// Binding is the A2A protocol binding: a2awire.BindingJSONRPC (the
	// default) or a2awire.BindingREST.
	Binding string
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
	tr := netguard.NewTransport(dialTimeout, cfg.private) // no proxy: the checks apply to the agent
	tr.MaxIdleConnsPerHost = 4
	hc := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
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
	result, err := c.send(ctx, ep, u.String(), legacy, tool, args)
	if !legacy && fallBack(err) {
		legacy = true
		result, err = c.send(ctx, ep, u.String(), legacy, tool, args)
	}
	if err != nil {
		return nil, err
	}
	ev, err := decodeEvent(result)
	if err != nil {
		return nil, err
	}
	return ev.final()
}

// send makes one send request.
func (c *Client) send(ctx context.Context, ep Endpoint, u string, legacy bool, tool string, args json.RawMessage) (json.RawMessage, error) {
	ex, err := c.newExchange(ep, u, legacy, false, tool, args)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, ex, nil)
}

// fallBack reports whether err says the server does not speak A2A 1.0's
// method names: a 0.3 server answers "method not found" or "version not
// supported".
func fallBack(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && (re.Code == a2awire.CodeMethodNotFound || re.Code == a2awire.CodeVersionNotSupported)
}

// exchange is one HTTP request of a call and how its answer is read.
type exchange struct {
	url     string // the request URL
	version string // the A2A-Version header
	body    []byte
	stream  bool
	// unwrap returns the result in a reply body or in one event's data:
	// the JSON-RPC envelope's result, or (REST) the JSON itself.
	unwrap func([]byte) (json.RawMessage, error)
	// failure reads an answer that is not 2xx (its HTTP status and body):
	// the *RemoteError it carries, or nil.
	failure func(status int, raw []byte) error
}

// newExchange builds the request that calls tool on ep, at the base URL u,
// in the 0.3 shapes when legacy is set.
func (c *Client) newExchange(ep Endpoint, u string, legacy, stream bool, tool string, args json.RawMessage) (*exchange, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return nil, errors.New("a2a: the arguments are not valid JSON")
	}
	id := "adpnode-" + strconv.FormatUint(c.nextID.Add(1), 10)
	ex := &exchange{url: u, version: a2awire.Version10, stream: stream}
	if legacy {
		ex.version = a2awire.Version03
	}
	params := map[string]any{"message": newMessage(id, legacy, tool, args)}
	var err error
	if ep.Binding == a2awire.BindingREST {
		ex.url = strings.TrimSuffix(u, "/") + restPath(legacy, stream)
		ex.body, err = json.Marshal(params)
		ex.unwrap, ex.failure = restResult, restFailure
		return ex, err
	}
	ex.body, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": rpcMethod(legacy, stream), "params": params})
	ex.unwrap = func(raw []byte) (json.RawMessage, error) { return decodeResponse(raw, id) }
	ex.failure = func(_ int, raw []byte) error {
		var re *RemoteError
		if _, err := decodeResponse(raw, id); errors.As(err, &re) {
			return re
		}
		return nil
	}
	return ex, err
}

// rpcMethod is the JSON-RPC method of a send or stream.
func rpcMethod(legacy, stream bool) string {
	switch {
	case legacy && stream:
		return a2awire.MethodStream03
	case legacy:
		return a2awire.MethodSend03
	case stream:
		return a2awire.MethodSendStreamingMessage
	}
	return a2awire.MethodSendMessage
}

// do posts one request and returns its result. For a stream it reads the
// events and hands each result to onEvent; a JSON answer to a stream
// request (an error, or a server that answers a stream request with one
// reply) is returned as for a plain request.
func (c *Client) do(ctx context.Context, ex *exchange, onEvent func(json.RawMessage) (bool, error)) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ex.url, bytes.NewReader(ex.body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefusedURL, err)
	}
	req.Header.Set("Content-Type", a2awire.MediaJSON)
	req.Header.Set(a2awire.VersionHeader, ex.version)
	req.Header.Set("Accept", a2awire.MediaJSON)
	if ex.stream {
		req.Header.Set("Accept", a2awire.MediaSSE+", "+a2awire.MediaJSON)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, ex.url, err)
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode/100 == 2
	if ex.stream && ct == a2awire.MediaSSE && ok {
		return nil, c.readEvents(ctx, ex.url, resp.Body, ex.unwrap, onEvent)
	}
	raw, err := readBounded(resp.Body, c.cfg.maxReply)
	if err != nil {
		return nil, c.readError(ctx, ex.url, err)
	}
	if ok {
		return ex.unwrap(raw)
	}
	if err := ex.failure(resp.StatusCode, raw); err != nil {
		c.cfg.log.Debug("a2a call failed", "err", err)
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrUnreachable, ex.url, resp.StatusCode)
	}
	return nil, badReply("%s answered HTTP %d", ex.url, resp.StatusCode)
}

// errRedirect is how CheckRedirect refuses a redirect.
var errRedirect = errors.New("redirect refused")

// transportError classifies a failed request: the caller's own deadline
// or cancellation as it is, a refused address, a refused redirect, or
// else the endpoint unreachable.
func (c *Client) transportError(ctx context.Context, url string, err error) error {
	var ae *netguard.AddrError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &ae):
		return refused(ae)
	case errors.Is(err, errRedirect):
		return badReply("%s redirected the call", url)
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
