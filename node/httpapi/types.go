package httpapi

import (
	"encoding/json"

	"github.com/adpnode/adpnode/node/nodeapi"
	"github.com/adpnode/adpnode/store"
)

// The request and response bodies of the API, shared by the handlers and
// Client. GET /v1/status answers a nodeapi.Status, GET /v1/card and
// PUT /v1/card a signed card, POST /v1/discover an adp.DiscoverResponse,
// POST /v1/describe the card or its requested fields.

// CardView is a held card with its provenance and freshness
// (GET /v1/cards/{id}, and each card of GET /v1/cards).
type CardView struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	AgentCard  json.RawMessage `json:"agent_card"`
	Source     store.Source    `json:"source"`
	Origin     string          `json:"origin,omitempty"`
	ReceivedAt string          `json:"received_at"`
	ExpiresAt  string          `json:"expires_at,omitempty"`
	Stale      bool            `json:"stale"`
	// Signature is set by GET /v1/cards/{id} only: SignatureValid, or why
	// the card's signature does not verify.
	Signature string `json:"signature,omitempty"`
	// DomainVerified is set by GET /v1/cards/{id} for a card whose did is
	// a did:wba DID, when the Service is a DomainVerifier: "verified"
	// once the DID document resolves and lists the card's key,
	// "unverified: <why>", or "pending".
	DomainVerified string `json:"domain_verified,omitempty"`
}

// SignatureValid is CardView.Signature for a card whose signature
// verifies.
const SignatureValid = "valid"

// CardList is the answer of GET /v1/cards.
type CardList struct {
	Count int        `json:"count"` // all held cards
	Cards []CardView `json:"cards"` // this page, in agent id order
}

// DescribeRequest is the body of POST /v1/describe.
type DescribeRequest struct {
	Agent  string   `json:"agent"`
	Fields []string `json:"fields"`
}

// InvokeRequest is the body of POST /v1/invoke.
type InvokeRequest struct {
	Agent     string          `json:"agent"`
	Method    string          `json:"method"`
	Body      json.RawMessage `json:"body"`
	Stream    bool            `json:"stream"`
	TimeoutMS int             `json:"timeout_ms"`
}

// InvokeResponse is the answer of POST /v1/invoke without streaming.
type InvokeResponse struct {
	Agent     string          `json:"agent"`
	Body      json.RawMessage `json:"body"`
	LatencyMS float64         `json:"latency_ms"`
	Method    string          `json:"method"`
}

// RateRequest is the body of POST /v1/ratings.
type RateRequest struct {
	Agent string `json:"agent"`
	Stars *int   `json:"stars"`
}

// RateResponse is the answer of POST /v1/ratings: the rating and the
// agent's rating totals after it.
type RateResponse struct {
	Agent       string  `json:"agent"`
	RatingCount int     `json:"rating_count"`
	RatingMean  float64 `json:"rating_mean"`
	Stars       int     `json:"stars"`
}

// AdvertiseRequest is the body of POST /v1/advertise.
type AdvertiseRequest struct {
	Agent string `json:"agent"`
}

// AdvertiseResponse is the answer of POST /v1/advertise.
type AdvertiseResponse struct {
	Agent  string `json:"agent"`
	Stored bool   `json:"stored"`
}

// PeersResponse is the answer of GET /v1/peers.
type PeersResponse struct {
	Peers []nodeapi.PeerInfo `json:"peers"`
}
