package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/httpapi"
	"github.com/adpnode/adpnode/node/nodeapi"
)

// Node is what the server needs of a running node. *httpapi.Client
// implements it over the node's HTTP API and httpapi.Local in the node's
// own process; both return failures as *httpapi.Error.
type Node interface {
	// Status is the node's summary.
	Status(ctx context.Context) (*nodeapi.Status, error)
	// OwnCard is the node's signed card; UpdateCard replaces it (the node
	// signs it) and returns the signed card.
	OwnCard(ctx context.Context) (json.RawMessage, error)
	UpdateCard(ctx context.Context, card json.RawMessage) (json.RawMessage, error)
	// CardPage lists at most limit held cards in agent id order, with the
	// count of all held cards; CardByID finds one here or on the network.
	CardPage(ctx context.Context, limit int) (*httpapi.CardList, error)
	CardByID(ctx context.Context, id string) (*httpapi.CardView, error)
	// Discover ranks agents for a checked request (adp.ParseDiscoverRequest)
	// in scope "local" or "network".
	Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error)
	// Describe fetches an agent's card, or only the named fields.
	Describe(ctx context.Context, agent string, fields []string) (json.RawMessage, error)
	// Invoke calls a tool of an agent. With onChunk set it streams: each
	// chunk goes to onChunk as it arrives and the answer has no Body.
	Invoke(ctx context.Context, req *httpapi.InvokeRequest, onChunk func(json.RawMessage) error) (*httpapi.InvokeResponse, error)
	// Rate records a rating of 1 to 5 stars and returns the totals after it.
	Rate(ctx context.Context, agent string, stars int) (*httpapi.RateResponse, error)
}
