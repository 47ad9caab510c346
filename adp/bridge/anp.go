package bridge

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// anpContext is the JSON-LD context of ANP discovery and description
// documents (the ANP draft's examples).
var anpContext = doc{
	"@vocab": "https://schema.org/",
	"did":    "https://w3id.org/did#",
	"ad":     "https://agent-network-protocol.com/ad#",
}

// ANPDescriptionPath returns the path, under a base URL, at which a node
// serves the ANP agent description of an agent: /agents/<peer id in base36
// CID form>/ad.json. ANPCollection links to it.
func ANPDescriptionPath(agentID string) (string, error) {
	id, err := adp.NormalizeAgentID(agentID)
	if err != nil {
		return "", err
	}
	return "/agents/" + strings.TrimPrefix(id, agentScheme) + "/ad.json", nil
}

// ANPCollection builds the active-discovery document of the ANP draft
// (Agent Discovery, "Discovery Document Format") that a domain serves at
// ANPWellKnownPath, media type ANPMediaType:
//
//	{"@context": {...}, "@type": "CollectionPage",
//	 "url": "<base>/.well-known/agent-descriptions",
//	 "items": [{"@type": "ad:AgentDescription", "name": ..., "@id": "<base>/agents/<id>/ad.json"}]}
//
// baseURL is the absolute http or https URL of the serving node (a trailing
// "/" is ignored). Every card needs a valid agent id, which names its
// description document (see ANPDescriptionPath and ANPDescription). Items
// keep the order of cards; use ANPCollectionPage to paginate.
func ANPCollection(cards []*adp.Card, baseURL string) ([]byte, error) {
	return ANPCollectionPage(cards, baseURL, 1, 0)
}

// ANPCollectionPage builds page number page (from 1) of the collection with
// at most size items per page (size <= 0: one page with every card); when
// more cards follow, "next" links to "<url>?page=<page+1>", the draft's
// pagination.
func ANPCollectionPage(cards []*adp.Card, baseURL string, page, size int) ([]byte, error) {
	if page < 1 {
		return nil, fmt.Errorf("bridge: ANP page %d, pages start at 1", page)
	}
	from, to := 0, len(cards)
	if size > 0 {
		from = min((page-1)*size, len(cards))
		to = min(from+size, len(cards))
	}
	return ANPPage(cards[from:to], baseURL, page, to < len(cards))
}

// ANPPage builds page number page (from 1) of the collection from that
// page's cards alone, for a caller that reads one page from a larger set;
// more says whether another page follows (then "next" links to it).
func ANPPage(items []*adp.Card, baseURL string, page int, more bool) ([]byte, error) {
	base, err := checkBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if page < 1 {
		return nil, fmt.Errorf("bridge: ANP page %d, pages start at 1", page)
	}
	var probs []adp.Problem
	docs := make([]doc, 0, len(items))
	for i, c := range items {
		p, err := ANPDescriptionPath(c.ID)
		if err != nil {
			probs = append(probs, adp.Problem{Path: fmt.Sprintf("/items/%d/@id", i), Message: "card has no valid agent id: " + err.Error()})
			continue
		}
		docs = append(docs, doc{"@type": "ad:AgentDescription", "name": c.Name, "@id": base + p})
	}
	if len(probs) > 0 {
		return nil, &adp.ValidationError{Problems: probs}
	}
	self := base + ANPWellKnownPath
	d := doc{"@context": anpContext, "@type": "CollectionPage", "url": self, "items": docs}
	if page > 1 {
		d["url"] = fmt.Sprintf("%s?page=%d", self, page)
	}
	if more {
		d["next"] = fmt.Sprintf("%s?page=%d", self, page+1)
	}
	return marshal(d)
}

// ANPDescription builds the ANP agent description document
// ("ad:AgentDescription", Agent Description section) of a card, served at
// baseURL + ANPDescriptionPath(card.ID): name, description, version, did
// (the card's did:key when it has one) and one structured interface per
// endpoint ({"@type": "ad:StructuredInterface", "protocol", "url"}), plus
// the ADP card itself under "ad:agentCard" for clients that understand it.
func ANPDescription(c *adp.Card, baseURL string) ([]byte, error) {
	base, err := checkBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	p, err := ANPDescriptionPath(c.ID)
	if err != nil {
		return nil, err
	}
	d := doc{"@context": anpContext, "@type": "ad:AgentDescription", "@id": base + p, "name": c.Name}
	d.setStr("description", c.Description)
	d.setStr("version", c.Version)
	d.setStr("did", c.DID)
	interfaces := make([]doc, 0, len(c.Endpoints))
	for _, e := range c.Endpoints {
		interfaces = append(interfaces, doc{"@type": "ad:StructuredInterface", "protocol": e.Protocol, "url": e.URI})
	}
	d["interfaces"] = interfaces
	cardJSON, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	d["ad:agentCard"] = json.RawMessage(cardJSON)
	return marshal(d)
}

func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("bridge: base URL %q must be an absolute http or https URL without query or fragment", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}
