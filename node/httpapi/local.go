package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// Local serves a Client's typed operations from a Service in the same
// process, with the checks, bounds and answers of the HTTP handlers and
// every failure mapped by ErrorOf to an *Error, so a caller cannot tell
// it from a Client. The node mounts its MCP server on one. It is safe for
// concurrent use if the Service is.
type Local struct{ svc Service }

// NewLocal returns the operations of svc.
func NewLocal(svc Service) *Local { return &Local{svc: svc} }

func apiErr(err error) error {
	if err == nil {
		return nil
	}
	return ErrorOf(err)
}

// Status is the node's summary.
func (l *Local) Status(context.Context) (*nodeapi.Status, error) {
	st := l.svc.Status()
	return &st, nil
}

// OwnCard is the node's signed card.
func (l *Local) OwnCard(context.Context) (json.RawMessage, error) { return l.svc.Card().Raw(), nil }

// UpdateCard replaces the node's card and returns it signed.
func (l *Local) UpdateCard(ctx context.Context, card json.RawMessage) (json.RawMessage, error) {
	c, err := adp.ParseCard(card)
	if err != nil {
		return nil, apiErr(err)
	}
	if c, err = l.svc.SetCard(ctx, c); err != nil {
		return nil, apiErr(err)
	}
	return c.Raw(), nil
}

// CardPage lists at most limit held cards.
func (l *Local) CardPage(ctx context.Context, limit int) (*CardList, error) {
	out, err := cardPage(ctx, l.svc, 0, limit)
	return out, apiErr(err)
}

// CardByID finds a card here or on the network.
func (l *Local) CardByID(ctx context.Context, id string) (*CardView, error) {
	ctx, cancel := context.WithTimeout(ctx, apiCallTimeout)
	defer cancel()
	rec, err := l.svc.LookupCard(ctx, id)
	if err != nil {
		return nil, apiErr(err)
	}
	v := viewRecord(rec, time.Now())
	return &v, nil
}

// Discover ranks agents for a checked request.
func (l *Local) Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, apiCallTimeout)
	defer cancel()
	resp, err := l.svc.Discover(ctx, req, scope)
	return resp, apiErr(err)
}

// Describe fetches an agent's card or some of its fields.
func (l *Local) Describe(ctx context.Context, agent string, fields []string) (json.RawMessage, error) {
	if err := requireAgent(agent); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, apiCallTimeout)
	defer cancel()
	raw, err := l.svc.Describe(ctx, agent, fields)
	return raw, apiErr(err)
}

// Invoke calls a tool of an agent; with onChunk set it streams.
func (l *Local) Invoke(ctx context.Context, req *InvokeRequest, onChunk func(json.RawMessage) error) (*InvokeResponse, error) {
	timeout, body, err := checkInvoke(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if onChunk != nil {
		if err := l.svc.InvokeStream(ctx, req.Agent, req.Method, body, onChunk); err != nil {
			return nil, apiErr(err)
		}
		return &InvokeResponse{Agent: req.Agent, Method: req.Method}, nil
	}
	res, err := l.svc.Invoke(ctx, req.Agent, req.Method, body)
	if err != nil {
		return nil, apiErr(err)
	}
	return invokeResponse(req, res), nil
}

// Rate records a rating and returns the totals after it.
func (l *Local) Rate(ctx context.Context, agent string, stars int) (*RateResponse, error) {
	out, err := rateAgent(ctx, l.svc, agent, &stars)
	return out, apiErr(err)
}

// requireAgent refuses an empty agent id.
func requireAgent(agent string) error {
	if agent == "" {
		return badRequest("/agent", "required")
	}
	return nil
}

// checkInvoke checks an invoke request and returns its timeout and body
// ("{}" when it has none).
func checkInvoke(in *InvokeRequest) (time.Duration, []byte, error) {
	switch {
	case in.Agent == "":
		return 0, nil, badRequest("/agent", "required")
	case in.Method == "":
		return 0, nil, badRequest("/method", "required")
	case !aitp.ValidMethod(in.Method):
		return 0, nil, badRequestf("/method", "must be 1 to %d octets of UTF-8 without spaces or control characters", aitp.MaxMethodLen)
	case in.TimeoutMS < 0 || in.TimeoutMS > MaxInvokeTimeoutMS:
		return 0, nil, badRequestf("/timeout_ms", "must be 0 to %d", MaxInvokeTimeoutMS)
	}
	timeout := DefaultInvokeTimeout
	if in.TimeoutMS > 0 {
		timeout = time.Duration(in.TimeoutMS) * time.Millisecond
	}
	body := []byte(in.Body)
	if len(body) == 0 || string(body) == "null" {
		body = []byte("{}")
	}
	return timeout, body, nil
}

func invokeResponse(in *InvokeRequest, res *nodeapi.InvokeResult) *InvokeResponse {
	return &InvokeResponse{Agent: in.Agent, Method: in.Method, Body: res.Body, LatencyMS: float64(res.Latency.Microseconds()) / 1000}
}

// rateAgent records a rating and reads the agent's totals after it.
func rateAgent(ctx context.Context, svc Service, agent string, stars *int) (*RateResponse, error) {
	if err := requireAgent(agent); err != nil {
		return nil, err
	}
	if stars == nil {
		return nil, badRequest("/stars", "required")
	}
	if err := svc.Rate(ctx, agent, *stars); err != nil {
		return nil, err
	}
	stats, err := svc.Stats(ctx, agent)
	if err != nil {
		return nil, err
	}
	return &RateResponse{Agent: agent, Stars: *stars, RatingCount: stats.RatingCount, RatingMean: stats.RatingMean}, nil
}

// cardPage lists the held cards from offset, at most limit.
func cardPage(ctx context.Context, svc Service, offset, limit int) (*CardList, error) {
	recs, total, err := svc.CardPage(ctx, offset, limit)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := CardList{Count: total, Cards: []CardView{}}
	for _, r := range recs {
		out.Cards = append(out.Cards, viewRecord(r, now))
	}
	return &out, nil
}
