package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
	"github.com/adpnode/adpnode/node/a2aserver"
)

// anpPageSize is the number of items per ANP CollectionPage.
const anpPageSize = 100

// wellKnownDoc renders one /.well-known document.
type wellKnownDoc struct {
	contentType string
	render      func(n Service, r *http.Request) ([]byte, error)
}

// wellKnownDocs are the documents served under /.well-known, each built
// from the node's own card by package bridge.
var wellKnownDocs = map[string]wellKnownDoc{
	"/.well-known/adp-card.json": {"application/json", func(n Service, _ *http.Request) ([]byte, error) {
		return n.Card().Raw(), nil
	}},
	bridge.A2AWellKnownPath: {"application/json", func(n Service, _ *http.Request) ([]byte, error) {
		return bridge.ToA2A(n.Card())
	}},
	bridge.AgentCardWellKnownPath: {bridge.AgentCardMediaType, func(n Service, _ *http.Request) ([]byte, error) {
		return bridge.ToAgentCard(withHTTPEndpoint(n.Card(), n.APIURL()))
	}},
	bridge.AgentJSONWellKnownPath: {"application/json", func(n Service, _ *http.Request) ([]byte, error) {
		return bridge.AgentJSON(n.Card())
	}},
	bridge.ANPWellKnownPath: {bridge.ANPMediaType, func(n Service, r *http.Request) ([]byte, error) {
		page := 1
		if s := r.URL.Query().Get("page"); s != "" {
			p, err := strconv.Atoi(s)
			if err != nil || p < 1 || p > 1<<20 {
				return nil, badRequest("", "page must be a positive integer")
			}
			page = p
		}
		cards, err := n.DescribedCards(r.Context())
		if err != nil {
			return nil, err
		}
		return bridge.ANPCollectionPage(cards, n.APIURL(), page, anpPageSize)
	}},
}

// a2aCardDoc is the A2A card when the API mounts an A2A server
// (WithA2A): its JSON-RPC interfaces name A2APath.
var a2aCardDoc = wellKnownDoc{"application/json", func(n Service, _ *http.Request) ([]byte, error) {
	return bridge.ToA2A(a2aserver.WithJSONRPC(n.Card(), n.APIURL()+A2APath))
}}

// anpDescription serves GET /agents/{id}/ad.json: the ANP description of
// the own card or, on a directory peer, of a held card.
func (a *api) anpDescription(w http.ResponseWriter, r *http.Request) {
	id := "agent://" + strings.TrimPrefix(r.PathValue("id"), "agent://")
	c := a.n.DescribedCard(id)
	if c == nil {
		writeAPIError(w, &Error{Status: http.StatusNotFound, Code: codeNotFound, Message: "no description for " + r.PathValue("id")})
		return
	}
	body, err := bridge.ANPDescription(c, a.n.APIURL())
	if err != nil {
		writeAPIError(w, err)
		return
	}
	writeAPIRaw(w, http.StatusOK, bridge.ANPMediaType, body)
}

// withHTTPEndpoint returns a copy of c that the AgentCard draft accepts:
// with the node's API as an http endpoint when c has none (the draft
// requires one; the document is served from that API) and a version.
func withHTTPEndpoint(c *adp.Card, apiURL string) *adp.Card {
	c = c.Clone()
	if !slices.ContainsFunc(c.Endpoints, func(e adp.Endpoint) bool { return e.Protocol == "http" || e.Protocol == "https" }) {
		c.Endpoints = append(c.Endpoints, adp.Endpoint{Protocol: "http", URI: apiURL + "/v1/invoke", Methods: []string{"POST"}})
	}
	if c.Version == "" {
		c.Version = "0.0.0"
	}
	return c
}
