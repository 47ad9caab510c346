package aicatalog

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// Source is a discovery engine a search answers from: the node's own
// (scope local) and the cards a directory registered from the web.
type Source interface {
	// Discover ranks the cards the source holds for req.
	Discover(ctx context.Context, req *adp.DiscoverRequest) (*adp.DiscoverResponse, error)
	// Origin says where the card of agentID came from.
	Origin(agentID string) Origin
}

// Origin is the provenance of a result's card.
type Origin struct {
	// Provenance is how the card reached the node: a store source
	// ("gossip", "dht", "advertise", "self", "import") or ProvenanceWeb.
	Provenance string
	// Signed is whether the card is signed by an adpnode key (an ADP card
	// that passed the node's Checker).
	Signed bool
	// URL is the document the card was fetched from, for a web card; its
	// MediaType that document's media type (MediaA2ACard...).
	URL       string
	MediaType string
	// Verified lists what was checked of a web card ("jws", "did:wba").
	Verified []string
}

// sourceURI is the result's source: the fetched URL of a web card, else
// SourcePrefix and the provenance.
func (o Origin) sourceURI() string {
	if o.Provenance == ProvenanceWeb && o.URL != "" {
		return o.URL
	}
	return SourcePrefix + o.Provenance
}

// Score maps a discovery score (0..1) to the draft's relevance (0..100).
func Score(s float64) int {
	if math.IsNaN(s) || s <= 0 {
		return 0
	}
	return int(math.Round(math.Min(s, 1) * 100))
}

// hit is one candidate before the page is cut.
type hit struct {
	res   Result
	score float64
}

// Results runs req on every source, keeps the results that pass its
// filter and returns the best PageSize of them by score (ties by
// identifier, so the order is deterministic). publisher is the host the
// identifiers of adpnode cards are anchored to (the directory's own).
func Results(ctx context.Context, req *SearchRequest, publisher string, sources ...Source) (*SearchResponse, error) {
	dreq := req.Discover()
	var hits []hit
	for _, src := range sources {
		resp, err := src.Discover(ctx, dreq)
		if err != nil {
			return nil, err
		}
		for i := range resp.Results {
			r := &resp.Results[i]
			o := src.Origin(r.ID)
			res := ToResult(r, o, publisher)
			if matches(&res, o.Provenance, req.Query.Filter) {
				hits = append(hits, hit{res: res, score: r.Score})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].res.Identifier < hits[j].res.Identifier
	})
	out := &SearchResponse{Results: make([]Result, 0, min(len(hits), req.PageSize))}
	for i := 0; i < len(hits) && i < req.PageSize; i++ {
		out.Results = append(out.Results, hits[i].res)
	}
	return out, nil
}

// ToResult is the catalog entry of one discovery result. A web card is
// referenced by the URL it was fetched from; an adpnode card is given
// inline, signed, as an ADP card.
func ToResult(r *adp.DiscoverResult, o Origin, publisher string) Result {
	e := Entry{
		DisplayName: r.Name,
		Description: r.Description,
		Metadata:    map[string]any{"adpnode": provenanceMeta(r.ID, o)},
	}
	if e.DisplayName == "" {
		e.DisplayName = r.ID
	}
	var card struct {
		Version string                  `json:"version"`
		Skills  []string                `json:"skills"`
		Tools   []struct{ Name string } `json:"tools"`
	}
	_ = json.Unmarshal(r.AgentCard, &card) // a redacted or odd card only lacks these fields
	e.Version, e.Tags = card.Version, card.Skills
	for _, t := range card.Tools {
		if t.Name != "" {
			e.Capabilities = append(e.Capabilities, t.Name)
		}
	}
	if o.Provenance == ProvenanceWeb && o.URL != "" {
		e.Type, e.URL = o.MediaType, o.URL
		e.Identifier = Identifier(hostOf(o.URL), "web", r.ID)
	} else {
		e.Type, e.Data = MediaADPCard, r.AgentCard
		e.Identifier = Identifier(publisher, "adpnode", r.ID)
	}
	return Result{Entry: e, Score: Score(r.Score), Source: o.sourceURI()}
}

func provenanceMeta(agentID string, o Origin) map[string]any {
	m := map[string]any{"agentId": agentID, "provenance": o.Provenance, "signed": o.Signed}
	if len(o.Verified) > 0 {
		m["verified"] = o.Verified
	}
	return m
}

// Identifier is a domain-anchored URN (§4.2.1) for an agent: publisher
// the host the entry is anchored to, namespace "adpnode" or "web", and
// the agent id's key part (or a URL's path) as the name, with the
// characters a URN segment cannot hold replaced by "-".
func Identifier(publisher, namespace, agentID string) string {
	name := agentID
	if rest, ok := strings.CutPrefix(name, "agent://"); ok {
		name = rest
	}
	if publisher == "" {
		publisher = "localhost"
	}
	return "urn:ai:" + urnSafe(publisher) + ":" + namespace + ":" + urnSafe(name)
}

func urnSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
			return r
		}
		return '-'
	}, s)
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// matches applies the search filter: values ORed within a key, keys ANDed.
func matches(r *Result, provenance string, filter map[string][]string) bool {
	for k, vals := range filter {
		var have []string
		switch k {
		case FilterType:
			have = []string{r.Type}
		case FilterTags:
			have = r.Tags
		case FilterCapabilities:
			have = r.Capabilities
		case FilterSource:
			have = []string{r.Source, provenance}
		}
		if !slices.ContainsFunc(vals, func(v string) bool {
			return slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, v) })
		}) {
			return false
		}
	}
	return true
}
