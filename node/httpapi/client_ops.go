package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/adpnode/adpnode/adp"
)

// The typed operations of a Client beyond status, peers and cards. Local
// has the same methods over a Service in the node's own process, so code
// that needs a node (package node/mcpserver) takes either.

// OwnCard returns GET /v1/card: the node's signed card.
func (c *Client) OwnCard(ctx context.Context) (json.RawMessage, error) {
	return c.Do(ctx, http.MethodGet, "/v1/card", nil)
}

// UpdateCard sends PUT /v1/card and returns the card the node signed.
func (c *Client) UpdateCard(ctx context.Context, card json.RawMessage) (json.RawMessage, error) {
	return c.Do(ctx, http.MethodPut, "/v1/card", card)
}

// CardPage returns GET /v1/cards?limit=limit.
func (c *Client) CardPage(ctx context.Context, limit int) (*CardList, error) {
	var out CardList
	if err := c.call(ctx, http.MethodGet, "/v1/cards?limit="+strconv.Itoa(limit), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CardByID returns GET /v1/cards/{id}.
func (c *Client) CardByID(ctx context.Context, id string) (*CardView, error) {
	var out CardView
	if err := c.call(ctx, http.MethodGet, cardsPath+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Discover sends POST /v1/discover?scope=scope.
func (c *Client) Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error) {
	path := "/v1/discover"
	if scope != "" {
		path += "?scope=" + url.QueryEscape(scope)
	}
	var out adp.DiscoverResponse
	if err := c.call(ctx, http.MethodPost, path, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Describe sends POST /v1/describe.
func (c *Client) Describe(ctx context.Context, agent string, fields []string) (json.RawMessage, error) {
	return c.Do(ctx, http.MethodPost, "/v1/describe", DescribeRequest{Agent: agent, Fields: fields})
}

// Invoke sends POST /v1/invoke. With onChunk set it asks for a stream
// and calls onChunk with each chunk; the answer then has no Body.
func (c *Client) Invoke(ctx context.Context, req *InvokeRequest, onChunk func(json.RawMessage) error) (*InvokeResponse, error) {
	in := *req
	in.Stream = onChunk != nil
	if !in.Stream {
		var out InvokeResponse
		if err := c.call(ctx, http.MethodPost, "/v1/invoke", in, &out); err != nil {
			return nil, err
		}
		return &out, nil
	}
	err := c.Stream(ctx, "/v1/invoke", in, func(line []byte) error { return onChunk(line) })
	if err != nil {
		return nil, err
	}
	return &InvokeResponse{Agent: in.Agent, Method: in.Method}, nil
}

// Rate sends POST /v1/ratings.
func (c *Client) Rate(ctx context.Context, agent string, stars int) (*RateResponse, error) {
	var out RateResponse
	if err := c.call(ctx, http.MethodPost, "/v1/ratings", RateRequest{Agent: agent, Stars: &stars}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
