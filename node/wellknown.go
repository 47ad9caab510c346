package node

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/bridge"
)

// anpPageSize is the number of items per ANP CollectionPage.
const anpPageSize = 100

// wellKnownDoc renders one /.well-known document.
type wellKnownDoc struct {
	contentType string
	render      func(n *Node, r *http.Request) ([]byte, error)
}

// wellKnownDocs are the documents served under /.well-known, each built
// from the node's own card by package bridge.
var wellKnownDocs = map[string]wellKnownDoc{
	"/.well-known/adp-card.json": {"application/json", func(n *Node, _ *http.Request) ([]byte, error) {
		return n.Card().Raw(), nil
	}},
	bridge.A2AWellKnownPath: {"application/json", func(n *Node, _ *http.Request) ([]byte, error) {
		return bridge.ToA2A(n.Card())
	}},
	bridge.AgentCardWellKnownPath: {bridge.AgentCardMediaType, func(n *Node, _ *http.Request) ([]byte, error) {
		return bridge.ToAgentCard(withHTTPEndpoint(n.Card(), n.APIURL()))
	}},
	bridge.AgentJSONWellKnownPath: {"application/json", func(n *Node, _ *http.Request) ([]byte, error) {
		return bridge.AgentJSON(n.Card())
	}},
	bridge.ANPWellKnownPath: {bridge.ANPMediaType, func(n *Node, r *http.Request) ([]byte, error) {
		page := 1
		if s := r.URL.Query().Get("page"); s != "" {
			p, err := strconv.Atoi(s)
			if err != nil || p < 1 || p > 1<<20 {
				return nil, badRequest("", "page must be a positive integer")
			}
			page = p
		}
		cards, err := n.describedCards(r.Context())
		if err != nil {
			return nil, err
		}
		return bridge.ANPCollectionPage(cards, n.APIURL(), page, anpPageSize)
	}},
}

// describedCards are the cards the ANP collection lists: the own card, and
// on a directory peer every card it holds.
func (n *Node) describedCards(ctx context.Context) ([]*adp.Card, error) {
	own := n.Card()
	cards := []*adp.Card{own}
	if !n.cfg.Directory {
		return cards, nil
	}
	recs, err := n.Cards(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Card.ID != own.ID {
			cards = append(cards, r.Card)
		}
	}
	return cards, nil
}

// anpDescription serves GET /agents/{id}/ad.json: the ANP description of
// the own card or, on a directory peer, of a held card.
func (a *api) anpDescription(w http.ResponseWriter, r *http.Request) {
	id := "agent://" + strings.TrimPrefix(r.PathValue("id"), "agent://")
	var c *adp.Card
	if norm, err := adp.NormalizeAgentID(id); err == nil {
		if norm == a.n.AgentID() {
			c = a.n.Card()
		} else if a.n.cfg.Directory {
			c = a.n.store.Held(norm)
		}
	}
	if c == nil {
		writeAPIError(w, &apiError{status: http.StatusNotFound, Code: codeNotFound, Message: "no description for " + r.PathValue("id")})
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
