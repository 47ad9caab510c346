package discovery

import (
	"cmp"
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
	// FusionK is the k of reciprocal rank fusion: an agent ranked r by a
	// service adds 1/(FusionK + r). 60 is the constant of Cormack, Clarke
	// and Buettcher (SIGIR 2009), under which a first place counts about
	// as much as a 20th place in two other lists: one list alone does not
	// decide.
	FusionK = 60
)

// Federated is a result from a directory with its provenance, the
// verified full card it carried and its 1-based rank in the directory's
// answer.
type Federated struct {
	Result adp.DiscoverResult
	Card   *adp.Card
	Rank   int
}

// FromDirectory checks a directory's answer to a request for full cards
// and returns its acceptable results in the directory's order, stamped
// with the directory's agent id (origin_service), the time received and
// their rank in the answer: at most adp.MaxDiscoverLimit results, each
// carrying a card that verifies and has the result's id, that is not
// self's, with a score in [0, 1]. check decodes and verifies a result's
// card (nil: adp.DecodeVerified; the node passes its intake's shared
// check). refused is called for each result whose card does not verify
// or does not match (nil: ignore).
func FromDirectory(resp *adp.DiscoverResponse, dirID, self, received string, check func(raw []byte) (*adp.Card, error), refused func(id string, err error)) []Federated {
	if check == nil {
		check = adp.DecodeVerified
	}
	limit := min(len(resp.Results), adp.MaxDiscoverLimit)
	out := make([]Federated, 0, limit)
	for i, r := range resp.Results[:limit] {
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
		r.Sources, r.FusionScore = nil, 0 // a directory's own merge is not ours
		out = append(out, Federated{Result: r, Card: c, Rank: i + 1})
	}
	return out
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

// Merge fuses the local ranking with the directories' answers without
// comparing their scores, which are local to each service (discovery
// profile 6.1): each agent gets the reciprocal rank fusion of its ranks,
// sum over the lists that hold it of 1/(FusionK + rank), and the merged
// list is sorted by it (ties by agent id) and cut to the request's limit
// (defaults applied with adp.DiscoverRequest.WithDefaults).
//
// An agent this node ranked keeps its local result (card, score,
// evidence); one only directories returned shows the result of the
// directory that ranked it best, reduced to the requested detail. Every
// result lists its Sources: each directory that returned it with its
// rank, score and received_at, and "dht" when its card came from a DHT
// tag provider during this request (viaDHT: agent id -> received_at);
// origin_service and received_at name the best-ranked directory. The
// local list counts as one more list. Warnings are added to the local
// ones.
func Merge(local *adp.DiscoverResponse, remote []Federated, viaDHT map[string]string, req *adp.DiscoverRequest, warnings []string) *adp.DiscoverResponse {
	req = req.WithDefaults()
	type merged struct {
		r      adp.DiscoverResult
		best   int // best directory rank; 0 when none
		fusion float64
		local  bool
	}
	byID := make(map[string]*merged, len(local.Results)+len(remote))
	for i, r := range local.Results {
		r.OriginService, r.ReceivedAt = "", ""
		m := &merged{r: r, fusion: 1.0 / float64(FusionK+i+1), local: true}
		if at, ok := viaDHT[r.ID]; ok {
			m.r.Sources = append(m.r.Sources, adp.ResultSource{OriginService: adp.OriginDHT, ReceivedAt: at, Rank: i + 1, Score: r.Score})
		}
		byID[r.ID] = m
	}
	known := make(map[string]bool, len(req.Known))
	for _, k := range req.Known {
		known[k] = true
	}
	for _, f := range remote {
		if len(known) > 0 && f.Card != nil && known[adp.CardDigest(f.Card.Raw())] {
			continue // the caller holds this card (the local ranking left it out too)
		}
		id := f.Result.ID
		m, ok := byID[id]
		if !ok {
			m = &merged{}
			byID[id] = m
		}
		if slices.ContainsFunc(m.r.Sources, func(s adp.ResultSource) bool { return s.OriginService == f.Result.OriginService }) {
			continue // one list per service
		}
		m.fusion += 1.0 / float64(FusionK+f.Rank)
		src := adp.ResultSource{OriginService: f.Result.OriginService, ReceivedAt: f.Result.ReceivedAt, Rank: f.Rank, Score: f.Result.Score}
		if m.best == 0 || f.Rank < m.best {
			m.best = f.Rank
			sources := m.r.Sources
			if !m.local {
				m.r = remoteResult(f, req)
			}
			m.r.Sources = sources
			m.r.OriginService, m.r.ReceivedAt = src.OriginService, src.ReceivedAt
		}
		m.r.Sources = append(m.r.Sources, src)
	}
	results := make([]adp.DiscoverResult, 0, len(byID))
	for _, m := range byID {
		m.r.FusionScore = m.fusion
		results = append(results, m.r)
	}
	slices.SortFunc(results, func(a, b adp.DiscoverResult) int {
		if c := cmp.Compare(b.FusionScore, a.FusionScore); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(results) > req.Limit {
		results = results[:req.Limit]
	}
	bindings := make(map[string][]adp.Binding, len(local.Candidates)+len(remote))
	for _, c := range local.Candidates {
		bindings[c.ID] = c.Bindings
	}
	for _, f := range remote {
		if _, ok := bindings[f.Result.ID]; !ok {
			bindings[f.Result.ID] = adp.BindingsOf(f.Card)
		}
	}
	out := *local
	out.Results = results
	out.Candidates = make([]adp.Candidate, len(results))
	for i, r := range results {
		out.Candidates[i] = adp.CandidateOf(r, bindings[r.ID])
	}
	out.Warnings = append(slices.Clone(local.Warnings), warnings...)
	return &out
}

// remoteResult is a directory's result reduced to the request's detail
// and evidence.
func remoteResult(f Federated, req *adp.DiscoverRequest) adp.DiscoverResult {
	r := f.Result
	if card, err := cardAtDetail(f.Card, req.Detail); err == nil {
		r.AgentCard = card
		r.Redacted = req.Detail != adp.DetailFull
	}
	if req.Detail == adp.DetailMinimal {
		r.Description = ""
	}
	if !req.IncludeEvidence {
		r.ScoreComponents, r.Weights, r.MatchedExamples = nil, nil, nil
	}
	return r
}
