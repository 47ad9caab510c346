package discovery

import (
	"slices"
	"strings"

	"github.com/adpnode/adpnode/adp"
)

// Bounds of a network-scope discovery.
const (
	// MaxFederatedTags bounds the DHT tag lookups of one request.
	MaxFederatedTags = 8
	// MaxDirectoriesAsked bounds the directories one request asks.
	MaxDirectoriesAsked = 8
)

// Federated is a result from a directory with its provenance and the
// verified full card it carried.
type Federated struct {
	Result adp.DiscoverResult
	Card   *adp.Card
}

// FromDirectory checks a directory's answer to a request for full cards
// and returns its acceptable results, stamped with the directory's agent
// id (origin_service) and the time received: at most adp.MaxDiscoverLimit
// results, each carrying a card that verifies and has the result's id,
// that is not self's, with a score in [0, 1]. check decodes and verifies
// a result's card (nil: adp.DecodeVerified; the node passes its intake's
// shared check). refused is called for each result whose card does not
// verify or does not match (nil: ignore).
func FromDirectory(resp *adp.DiscoverResponse, dirID, self, received string, check func(raw []byte) (*adp.Card, error), refused func(id string, err error)) []Federated {
	if check == nil {
		check = adp.DecodeVerified
	}
	limit := min(len(resp.Results), adp.MaxDiscoverLimit)
	out := make([]Federated, 0, limit)
	for _, r := range resp.Results[:limit] {
		c, err := check(r.AgentCard)
		if err != nil || c.ID != r.ID || c.ID == self {
			if refused != nil {
				refused(r.ID, err)
			}
			continue
		}
		r.ID, r.Name, r.Status = c.ID, c.Name, c.Status
		if r.Score < 0 || r.Score > 1 {
			continue
		}
		r.OriginService, r.ReceivedAt = dirID, received
		out = append(out, Federated{Result: r, Card: c})
	}
	return out
}

// Keep adds f to byID unless byID holds a better-scored result for the
// same agent.
func Keep(byID map[string]Federated, f Federated) {
	if old, ok := byID[f.Result.ID]; !ok || f.Result.Score > old.Result.Score {
		byID[f.Result.ID] = f
	}
}

// ProviderTags are the tags of req whose DHT providers a network-scope
// discovery looks up: required, then plain, then preferred tags, prefix
// patterns reduced to their prefix, without repeats, at most
// MaxFederatedTags.
func ProviderTags(req *adp.DiscoverRequest) []string {
	var tags []string
	for _, list := range [][]string{req.RequiredTags, req.Tags, req.PreferredTags} {
		for _, t := range list {
			t = strings.TrimSuffix(t, "/*")
			if t != "" && !slices.Contains(tags, t) && len(tags) < MaxFederatedTags {
				tags = append(tags, t)
			}
		}
	}
	return tags
}

// Merge merges the local ranking with the directories' results by agent
// id, keeping the best score and the directory's provenance, sorted by
// score and cut to the request's limit (defaults applied with
// adp.DiscoverRequest.WithDefaults). Directory results are reduced to
// the requested detail; warnings are added to the local ones.
func Merge(local *adp.DiscoverResponse, remote map[string]Federated, req *adp.DiscoverRequest, warnings []string) *adp.DiscoverResponse {
	req = req.WithDefaults()
	detail := req.Detail
	byID := make(map[string]adp.DiscoverResult, len(local.Results)+len(remote))
	for _, r := range local.Results {
		byID[r.ID] = r
	}
	for id, f := range remote {
		r := f.Result
		if cur, ok := byID[id]; ok && cur.Score >= r.Score {
			cur.OriginService, cur.ReceivedAt = r.OriginService, r.ReceivedAt
			byID[id] = cur
			continue
		}
		if card, err := cardAtDetail(f.Card, detail); err == nil {
			r.AgentCard = card
			r.Redacted = detail != adp.DetailFull
		}
		if detail == adp.DetailMinimal {
			r.Description = ""
		}
		if !req.IncludeEvidence {
			r.ScoreComponents, r.Weights, r.MatchedExamples = nil, nil, nil
		}
		byID[id] = r
	}
	results := make([]adp.DiscoverResult, 0, len(byID))
	for _, r := range byID {
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b adp.DiscoverResult) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(results) > req.Limit {
		results = results[:req.Limit]
	}
	out := *local
	out.Results = results
	out.Warnings = append(slices.Clone(local.Warnings), warnings...)
	return &out
}
