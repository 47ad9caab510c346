package httpapi

import (
	"context"
	"encoding/json"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// Service is what the API serves: the node's methods, one per route.
// Errors are the sentinel and typed errors ErrorOf maps (nodeapi's,
// discovery.ErrBadScope, adp's, store's, aitp's); a Service never
// chooses an HTTP status.
type Service interface {
	// AgentID is the node's own agent id; APIURL the API's base URL.
	AgentID() string
	APIURL() string
	// Card is the node's own signed card; SetCard replaces it.
	Card() *adp.Card
	SetCard(ctx context.Context, c *adp.Card) (*adp.Card, error)
	// CardPage lists at most limit held cards from offset in agent id
	// order, and how many are held; LookupCard finds one here or on the
	// network.
	CardPage(ctx context.Context, offset, limit int) ([]*store.Record, int, error)
	LookupCard(ctx context.Context, agentID string) (*store.Record, error)
	// DescribedCards returns at most limit of the cards the ANP collection
	// lists, from offset, and how many it lists in all; DescribedCard is
	// the card /agents/{id}/ad.json describes, nil when none.
	DescribedCards(ctx context.Context, offset, limit int) ([]*adp.Card, int, error)
	DescribedCard(agentID string) *adp.Card
	// AgentCardID is the AgentCard agent_id (a ULID kept in the data
	// directory); SignA2A signs an A2A AgentCard with the node's key.
	AgentCardID() string
	SignA2A(card []byte) ([]byte, error)
	Discover(ctx context.Context, req *adp.DiscoverRequest, scope string) (*adp.DiscoverResponse, error)
	Describe(ctx context.Context, agentID string, fields []string) (json.RawMessage, error)
	Invoke(ctx context.Context, agentID, method string, body []byte) (*nodeapi.InvokeResult, error)
	InvokeStream(ctx context.Context, agentID, method string, body []byte, fn func(chunk json.RawMessage) error) error
	Rate(ctx context.Context, agentID string, stars int) error
	Stats(ctx context.Context, agentID string) (store.Stats, error)
	Advertise(ctx context.Context, agentID string) (bool, error)
	PeerInfos() []nodeapi.PeerInfo
	// Arrivals are the node's first arrivals of card versions, of the
	// given (normalized) agents or of all when none is given; Network is
	// what the node knows of the network's connections (package
	// node/netview).
	Arrivals(agents ...string) []nodeapi.Arrival
	Network(ctx context.Context) (*nodeapi.Network, error)
	// Events subscribes to card and peer changes: a channel of at most
	// buf pending events and a cancel func that closes it (see
	// node.Node.Events for the contract).
	Events(buf int) (<-chan nodeapi.Event, func(), error)
	Status() nodeapi.Status
}

// DomainVerifier is implemented by a Service that checks the domain of a
// card whose did is a did:wba DID (GET /v1/cards/{id} reports it as
// CardView.DomainVerified): "" for other cards. It may fetch the DID
// document and must bound how long and how many at once.
type DomainVerifier interface {
	DomainVerified(ctx context.Context, c *adp.Card) string
}
