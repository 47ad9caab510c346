package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
)

// The ADP method names (ADP section 4), carried in the AITP method field.
const (
	MethodDescribe  = "adp.describe"
	MethodAdvertise = "adp.advertise"
	MethodDiscover  = "adp.discover"
)

// Bounds of an adp.describe request.
const (
	MaxDescribeRequestSize = 8 << 10
	MaxDescribeFields      = 64
	MaxDescribeFieldLen    = 64
)

// CardSource supplies this agent's own signed card, or nil when it has
// none yet.
type CardSource interface {
	OwnCard() *adp.Card
}

// CardSink receives a card pushed with adp.advertise. The card has passed
// the Checker (decoded, validated and verified) with from, the
// authenticated caller, as its owner. stored reports whether the sink kept it (false
// when it holds a card that supersedes it).
type CardSink interface {
	AdvertisedCard(ctx context.Context, c *adp.Card, from peer.ID) (stored bool, err error)
}

// Discoverer answers adp.discover from the node's knowledge of cards.
type Discoverer interface {
	Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error)
}

// Limiter admits or refuses one call from p over a connection from addr
// (internal/ratelimit's Guard is one).
type Limiter interface {
	AllowPeer(p peer.ID, addr ma.Multiaddr) (ok bool, retryAfter time.Duration)
}

// CardSourceFunc adapts a function to CardSource.
type CardSourceFunc func() *adp.Card

// OwnCard calls f.
func (f CardSourceFunc) OwnCard() *adp.Card { return f() }

// Service serves the three ADP methods on an aitp.Server. An error a
// sink or discoverer returns is answered as it is when it is an
// *aitp.Error, as ERROR otherwise. A Service is safe for concurrent use
// and holds no goroutines.
type Service struct {
	cfg config
}

type config struct {
	check *adp.Checker
	src   CardSource
	sink  CardSink
	disc  Discoverer
	log   *slog.Logger

	advertiseLimit, discoverLimit Limiter
	discovering                   chan struct{} // one token per adp.discover running; nil: no bound
}

// Option configures a Service.
type Option func(*config)

// WithCardSink enables adp.advertise, handing accepted cards to sink.
func WithCardSink(sink CardSink) Option { return func(c *config) { c.sink = sink } }

// WithChecker makes adp.advertise check cards through k, the node's
// Checker shared with its other paths (default: the same check without
// memory).
func WithChecker(k *adp.Checker) Option { return func(c *config) { c.check = k } }

// WithDiscoverer enables adp.discover, answered by d.
func WithDiscoverer(d Discoverer) Option { return func(c *config) { c.disc = d } }

// WithAdvertiseLimit answers an adp.advertise that l refuses with BUSY
// and its retry_after, before the card is read (default: no limit).
func WithAdvertiseLimit(l Limiter) Option { return func(c *config) { c.advertiseLimit = l } }

// WithDiscoverLimit answers an adp.discover that l refuses with BUSY and
// its retry_after, before the request is read (default: no limit).
func WithDiscoverLimit(l Limiter) Option { return func(c *config) { c.discoverLimit = l } }

// DiscoverQueueWait is how long an adp.discover waits for one of the
// WithMaxDiscovering slots before it is answered BUSY.
const DiscoverQueueWait = time.Second

// WithMaxDiscovering runs at most n adp.discover calls at once, from all
// peers together (default: no bound; n below 1 is ignored). A discovery
// ranks every held card on the CPU, so past the bound a call waits for a
// slot up to DiscoverQueueWait, then is answered BUSY (code busy,
// retry_after 1 s): many peers together cannot queue unbounded work on a
// directory, while the per-peer limits (WithDiscoverLimit) bound each one.
func WithMaxDiscovering(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.discovering = make(chan struct{}, n)
		}
	}
}

// admit asks l, when set, to admit r; a refusal is BUSY with the time
// after which the caller may try again.
func admit(l Limiter, r *aitp.Request) *aitp.Error {
	if l == nil {
		return nil
	}
	if ok, wait := l.AllowPeer(r.Remote, r.RemoteAddr); !ok {
		return aitp.Busy(aitp.CodeRateLimited, wait, "too many %s calls from this peer or its network; retry later", r.Method)
	}
	return nil
}

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// New returns a Service answering adp.describe from src and, when
// configured, adp.advertise and adp.discover.
func New(src CardSource, opts ...Option) *Service {
	cfg := config{src: src, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.check == nil {
		cfg.check = &adp.Checker{}
	}
	return &Service{cfg: cfg}
}

// Register binds the service's methods on s: adp.describe always,
// adp.advertise with a sink, adp.discover with a discoverer. A method left
// out is answered NOT_FOUND by the server.
func (sv *Service) Register(s *aitp.Server) {
	s.HandleFunc(MethodDescribe, sv.ServeDescribe)
	if sv.cfg.sink != nil {
		s.HandleFunc(MethodAdvertise, sv.ServeAdvertise)
	}
	if sv.cfg.disc != nil {
		s.HandleFunc(MethodDiscover, sv.ServeDiscover)
	}
}

// describeRequest is the body of adp.describe.
type describeRequest struct {
	Fields []string
}

func parseDescribeRequest(body []byte) (*describeRequest, *aitp.Error) {
	var r describeRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return &r, nil
	}
	if len(body) > MaxDescribeRequestSize {
		return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "request is %d octets, limit %d", len(body), MaxDescribeRequestSize)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "body must be empty or a JSON object")
	}
	raw, ok := top["fields"]
	if !ok {
		return &r, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/fields", "must be an array of field names")
	}
	if len(items) > MaxDescribeFields {
		return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/fields", "at most %d names", MaxDescribeFields)
	}
	r.Fields = make([]string, 0, len(items))
	for i, it := range items {
		var f string
		path := "/fields/" + strconv.Itoa(i)
		if err := json.Unmarshal(it, &f); err != nil {
			return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, path, "must be a string")
		}
		if f == "" || len(f) > MaxDescribeFieldLen {
			return nil, aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, path, "must be 1 to %d octets", MaxDescribeFieldLen)
		}
		r.Fields = append(r.Fields, f)
	}
	return &r, nil
}

// ServeDescribe answers adp.describe (ADP 4.1): the signed card as it was
// signed, or, when the body lists fields, an object with those top-level
// fields the card has plus id and name.
func (sv *Service) ServeDescribe(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	req, perr := parseDescribeRequest(r.Body)
	if perr != nil {
		return perr
	}
	var c *adp.Card
	if sv.cfg.src != nil {
		c = sv.cfg.src.OwnCard()
	}
	if c == nil {
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "this agent has no card yet")
	}
	raw := c.Raw()
	if raw == nil {
		var err error
		if raw, err = c.MarshalJSON(); err != nil {
			return fmt.Errorf("adp/service: encode own card: %w", err)
		}
	}
	if req.Fields == nil {
		_, err := w.Write(raw)
		return err
	}
	b, err := SelectFields(raw, req.Fields)
	if err != nil {
		return fmt.Errorf("adp/service: decode own card: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// SelectFields returns the answer of adp.describe with fields for the
// card encoded in raw: an object with id, name and those of fields the
// card has at its top level.
func SelectFields(raw []byte, fields []string) (json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"id": all["id"], "name": all["name"]}
	for _, f := range fields {
		if v, ok := all[f]; ok {
			out[f] = v
		}
	}
	return json.Marshal(out)
}

// invalid turns a card or request decoding error into INVALID_REQUEST:
// path is the first problem's, the message lists them all.
func invalid(err error, what string) *aitp.Error {
	var (
		ve *adp.ValidationError
		ue *adp.UnsupportedFilterError
	)
	switch {
	case errors.As(err, &ue) && len(ue.Paths) > 0:
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeUnsupportedFilter, ue.Paths[0], "%v", err)
	case errors.As(err, &ve) && len(ve.Problems) > 0:
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, ve.Problems[0].Path, "%s", ve.Error())
	case errors.Is(err, adp.ErrUnsigned), errors.Is(err, adp.ErrBadSignature):
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/signature", "%v", err)
	case errors.Is(err, adp.ErrBadID), errors.Is(err, adp.ErrBadDID):
		path := "/id"
		if errors.Is(err, adp.ErrBadDID) {
			path = "/did"
		}
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, path, "%v", err)
	default:
		return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "%s: %v", what, err)
	}
}

// ServeAdvertise answers adp.advertise (ADP 4.2). The card passes the
// Checker with the caller as its owner: when its id names a peer other
// than the caller the answer is UNAUTHORIZED before any signature is
// checked; any other failure is INVALID_REQUEST with the path of the first
// problem. The card is then handed to the sink. The reply is {"stored": bool}.
func (sv *Service) ServeAdvertise(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	if sv.cfg.sink == nil {
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "advertise is not served here")
	}
	if busy := admit(sv.cfg.advertiseLimit, r); busy != nil {
		return busy
	}
	c, err := sv.cfg.check.Check(r.Body, r.Remote)
	if adp.StepOf(err) == adp.StepOwner {
		sv.cfg.log.Debug("adp/service: advertise for another agent", "peer", r.Remote, "err", err)
		return aitp.Errorf(aitp.StatusUnauthorized, aitp.CodeUnauthorized, "/id", "%v", err)
	}
	if err != nil {
		return invalid(err, "card")
	}
	stored, err := sv.cfg.sink.AdvertisedCard(ctx, c, r.Remote)
	if err != nil {
		return err
	}
	b, err := json.Marshal(advertiseReply{Stored: stored})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

type advertiseReply struct {
	Stored bool `json:"stored"`
}

func truncateID(s string) string {
	if len(s) > 128 {
		return s[:128] + "..."
	}
	return s
}

// slot takes one of the WithMaxDiscovering slots, waiting up to
// DiscoverQueueWait; BUSY when none frees.
func (sv *Service) slot(ctx context.Context) error {
	select {
	case sv.cfg.discovering <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(DiscoverQueueWait)
	defer t.Stop()
	select {
	case sv.cfg.discovering <- struct{}{}:
		return nil
	case <-t.C:
		return aitp.Busy(aitp.CodeBusy, time.Second, "too many discoveries running here; retry later")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ServeDiscover answers adp.discover (ADP 4.3 with the discovery profile):
// a malformed request is INVALID_REQUEST with the path of its first
// problem; otherwise the Discoverer's response is the reply.
func (sv *Service) ServeDiscover(ctx context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	if sv.cfg.disc == nil {
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "discover is not served here")
	}
	if busy := admit(sv.cfg.discoverLimit, r); busy != nil {
		return busy
	}
	req, err := adp.ParseDiscoverRequest(r.Body)
	if err != nil {
		return invalid(err, "request")
	}
	if sv.cfg.discovering != nil {
		if err := sv.slot(ctx); err != nil {
			return err
		}
		defer func() { <-sv.cfg.discovering }()
	}
	resp, err := sv.cfg.disc.Discover(ctx, req)
	if err != nil {
		return err
	}
	if resp == nil {
		return errors.New("adp/service: the discoverer returned no response and no error")
	}
	if resp.Results == nil {
		resp.Results = []adp.DiscoverResult{}
	}
	// The response's own MarshalJSON: json.Marshal would scan its output
	// once more to validate and compact it, the largest part of serving a
	// card sync's list.
	b, err := resp.MarshalJSON()
	if err != nil {
		return fmt.Errorf("adp/service: encode discover response: %w", err)
	}
	_, err = w.Write(b)
	return err
}
