package adp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// DiscoverRequest is the body of adp.discover: ADP 4.3's tags, query,
// limit and min_score with the discovery profile's fields (section 5.1).
// ParseDiscoverRequest fills the defaults, so a parsed request has Limit,
// MinScore and Detail set.
type DiscoverRequest struct {
	Tags            []string                   `json:"tags,omitempty"`
	Query           string                     `json:"query,omitempty"`
	Limit           int                        `json:"limit,omitempty"`     // default 10, 1..100
	MinScore        *float64                   `json:"min_score,omitempty"` // default 0.1, 0..1
	RequiredTags    []string                   `json:"required_tags,omitempty"`
	PreferredTags   []string                   `json:"preferred_tags,omitempty"`
	ExcludedTags    []string                   `json:"excluded_tags,omitempty"`
	Protocols       []string                   `json:"protocols,omitempty"`
	Constraints     map[string]json.RawMessage `json:"constraints,omitempty"`
	IncludeEvidence bool                       `json:"include_evidence,omitempty"`
	Detail          string                     `json:"detail,omitempty"` // minimal|summary|full, default summary
	ClientContext   json.RawMessage            `json:"client_context,omitempty"`
	// Probe asks the service to ping the top candidates before it
	// answers and to report the measured round trip (an adpnode
	// extension; a service that cannot probe ignores it).
	Probe bool `json:"probe,omitempty"`
	// Known names cards the caller holds (CardDigest of their bytes, at
	// most MaxKnownCards): a result whose card has one of these digests
	// is left out, before the limit is applied (an adpnode extension; a
	// card sync sends it).
	Known []string `json:"known,omitempty"`
}

// ParseDiscoverRequest decodes and checks an adp.discover body. An empty
// body is an empty request. An unknown top-level field is refused (a
// misspelled "querry" would otherwise return every agent at the same
// score); known ones must have the right type and bounds, and every problem is reported
// in a *ValidationError by JSON Pointer. Other errors wrap ErrTooLarge,
// ErrTooDeep or ErrMalformed. The defaults (limit 10, min_score 0.1, detail
// summary) are applied.
//
// Bounds: limit 1..MaxDiscoverLimit, min_score 0..1, at most
// MaxDiscoverTags entries in each tag list and in protocols, query at most
// MaxQueryLen octets, tags in the skill tag syntax optionally ending in
// "/*" (prefix match), constraints.max_results_age_seconds a number >= 0,
// constraints.allow_stale and constraints.strict booleans,
// constraints.relevance_floor a number in [0, 1], client_context an
// object, probe a boolean, known at most MaxKnownCards card digests
// (CardDigest). A strict request (constraints.strict true) naming a
// constraint this package cannot apply is refused with an
// *UnsupportedFilterError (ErrUnsupportedFilter).
func ParseDiscoverRequest(body []byte) (*DiscoverRequest, error) {
	if len(body) > MaxDiscoverRequestSize {
		return nil, fmt.Errorf("%w: request is %d octets, limit %d", ErrTooLarge, len(body), MaxDiscoverRequestSize)
	}
	r := &DiscoverRequest{}
	if len(bytes.TrimSpace(body)) > 0 {
		members, err := scanObject(body, MaxDepth)
		if err != nil {
			return nil, err
		}
		var d decoder
		for _, m := range members {
			r.decodeMember(&d, m)
		}
		if err := d.err(); err != nil {
			return nil, err
		}
	}
	if string(r.Constraints[ConstraintStrict]) == "true" {
		if names := r.UnsupportedConstraints(); len(names) > 0 {
			e := &UnsupportedFilterError{}
			for _, k := range names {
				e.Paths = append(e.Paths, "/constraints/"+escapePointer(k))
			}
			return nil, e
		}
	}
	return r.WithDefaults(), nil
}

// WithDefaults returns r with the defaults of ADP 4.3 and the discovery
// profile (limit 10, min_score 0.1, detail summary) in place of what it
// leaves out: r itself when it sets them all, else a shallow copy. It is
// the one place the defaults are applied; every path that ranks, merges
// or answers a request calls it, so a request built in Go without
// ParseDiscoverRequest means the same as its JSON form.
func (r *DiscoverRequest) WithDefaults() *DiscoverRequest {
	if r.Limit > 0 && r.MinScore != nil && r.Detail != "" {
		return r
	}
	c := *r
	if c.Limit <= 0 {
		c.Limit = DefaultDiscoverLimit
	}
	if c.MinScore == nil {
		ms := DefaultMinScore
		c.MinScore = &ms
	}
	if c.Detail == "" {
		c.Detail = DetailSummary
	}
	return &c
}

func (r *DiscoverRequest) decodeMember(d *decoder, m member) {
	p := "/" + escapePointer(m.key)
	v := m.value
	switch m.key {
	case "tags":
		r.Tags = d.queryTags(p, v)
	case "required_tags":
		r.RequiredTags = d.queryTags(p, v)
	case "preferred_tags":
		r.PreferredTags = d.queryTags(p, v)
	case "excluded_tags":
		r.ExcludedTags = d.queryTags(p, v)
	case "query":
		r.Query = d.str(p, v)
		if len(r.Query) > MaxQueryLen {
			d.add(p, fmt.Sprintf("is %d octets, limit %d", len(r.Query), MaxQueryLen))
		}
	case "limit":
		if n, ok := d.int(p, v, 1, MaxDiscoverLimit); ok {
			r.Limit = int(n)
		}
	case "min_score":
		if f, ok := d.number(p, v); ok {
			if f < 0 || f > 1 {
				d.add(p, "must be a number between 0 and 1")
			} else {
				r.MinScore = &f
			}
		}
	case "protocols":
		r.Protocols = d.strs(p, v)
		if len(r.Protocols) > MaxDiscoverTags {
			d.add(p, fmt.Sprintf("has %d entries, limit %d", len(r.Protocols), MaxDiscoverTags))
		}
		for i, s := range r.Protocols {
			if s == "" || len(s) > MaxTagLen {
				d.add(p+"/"+strconv.Itoa(i), fmt.Sprintf("must be 1 to %d octets", MaxTagLen))
			}
		}
	case "constraints":
		obj, ok := d.object(p, v)
		if !ok {
			return
		}
		r.Constraints = obj
		if raw, ok := obj[ConstraintMaxResultsAge]; ok {
			if f, ok := d.number(p+"/"+ConstraintMaxResultsAge, raw); ok && f < 0 {
				d.add(p+"/"+ConstraintMaxResultsAge, "must not be negative")
			}
		}
		for _, k := range []string{ConstraintAllowStale, ConstraintStrict} {
			if raw, ok := obj[k]; ok {
				d.bool(p+"/"+k, raw)
			}
		}
		if raw, ok := obj[ConstraintRelevanceFloor]; ok {
			if f, ok := d.number(p+"/"+ConstraintRelevanceFloor, raw); ok && (f < 0 || f > 1) {
				d.add(p+"/"+ConstraintRelevanceFloor, "must be a number between 0 and 1")
			}
		}
	case "include_evidence":
		if b := d.bool(p, v); b != nil {
			r.IncludeEvidence = *b
		}
	case "detail":
		r.Detail = d.str(p, v)
		switch r.Detail {
		case DetailMinimal, DetailSummary, DetailFull:
		default:
			d.add(p, "must be one of minimal, summary, full")
		}
	case "client_context":
		if _, ok := d.object(p, v); ok {
			r.ClientContext = v
		}
	case "probe":
		if b := d.bool(p, v); b != nil {
			r.Probe = *b
		}
	case "known":
		r.Known = d.known(p, v)
	default:
		d.add(p, "unknown field")
	}
}

// known decodes the known list of a discover request: at most
// MaxKnownCards digests as CardDigest writes them. Only the first bad
// entry is reported.
func (d *decoder) known(path string, raw json.RawMessage) []string {
	elems, ok := d.array(path, raw)
	if !ok {
		return nil
	}
	if len(elems) > MaxKnownCards {
		d.add(path, fmt.Sprintf("has %d entries, limit %d", len(elems), MaxKnownCards))
		return nil
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		p := path + "/" + strconv.Itoa(i)
		before := len(d.probs)
		out[i] = d.str(p, e)
		if len(d.probs) > before {
			return nil
		}
		if !validKnownDigest(out[i]) {
			d.add(p, fmt.Sprintf("must be a card digest: %d base64url characters without padding", base64.RawURLEncoding.EncodedLen(KnownDigestSize)))
			return nil
		}
	}
	return out
}

// queryTags decodes a tag list of a discover request.
func (d *decoder) queryTags(path string, raw json.RawMessage) []string {
	elems, ok := d.array(path, raw)
	if !ok {
		return nil
	}
	if len(elems) > MaxDiscoverTags {
		d.add(path, fmt.Sprintf("has %d tags, limit %d", len(elems), MaxDiscoverTags))
		return nil
	}
	tags := make([]string, len(elems))
	for i, e := range elems {
		p := path + "/" + strconv.Itoa(i)
		before := len(d.probs)
		tags[i] = d.str(p, e)
		if len(d.probs) > before {
			continue
		}
		if err := checkQueryTag(tags[i]); err != nil {
			d.add(p, err.Error())
		}
	}
	return tags
}

// checkQueryTag accepts a skill tag, optionally ending in "/*" (ADP 3.6.1
// prefix match).
func checkQueryTag(tag string) error {
	if len(tag) > 2 && tag[len(tag)-2:] == "/*" {
		return checkTag(tag[:len(tag)-2])
	}
	return checkTag(tag)
}

// number decodes a finite JSON number.
func (d *decoder) number(path string, raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		d.add(path, "must be a number")
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		d.add(path, "must be a finite number")
		return 0, false
	}
	return f, true
}

// MaxResultsAge returns constraints.max_results_age_seconds, if given.
func (r *DiscoverRequest) MaxResultsAge() (time.Duration, bool) {
	raw, ok := r.Constraints[ConstraintMaxResultsAge]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	if f > float64(math.MaxInt64/int64(time.Second)) {
		return math.MaxInt64, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// RelevanceFloor returns constraints.relevance_floor, if given.
func (r *DiscoverRequest) RelevanceFloor() (float64, bool) {
	raw, ok := r.Constraints[ConstraintRelevanceFloor]
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, false
	}
	return f, true
}

// AllowStale reports constraints.allow_stale.
func (r *DiscoverRequest) AllowStale() bool {
	return string(r.Constraints[ConstraintAllowStale]) == "true"
}

// UnsupportedConstraints returns, sorted, the constraint names this package
// does not understand; a service that cannot apply them lists them in
// DiscoverResponse.UnsupportedFilters (discovery profile 5.1, 13.3).
func (r *DiscoverRequest) UnsupportedConstraints() []string {
	var out []string
	for k := range r.Constraints {
		switch k {
		case ConstraintMaxResultsAge, ConstraintAllowStale, ConstraintRelevanceFloor, ConstraintStrict:
		default:
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// DiscoverResponse is the reply to adp.discover (ADP 4.3, discovery profile
// 6.1).
type DiscoverResponse struct {
	RequestID   string           `json:"request_id"`
	GeneratedAt string           `json:"generated_at"`
	Results     []DiscoverResult `json:"results"`
	// Candidates are Results in the discovery profile's shape, in the
	// same order.
	Candidates         []Candidate    `json:"candidates"`
	AppliedFilters     map[string]any `json:"applied_filters,omitempty"`
	UnsupportedFilters []string       `json:"unsupported_filters,omitempty"`
	Warnings           []string       `json:"warnings,omitempty"`
}

// DiscoverResult is one candidate of a DiscoverResponse. When set, Weights
// and ScoreComponents satisfy sum(Weights[k]*ScoreComponents[k]) == Score.
type DiscoverResult struct {
	// AgentCard is the full signed card, or a subset per the request's
	// detail level (then Redacted is set).
	AgentCard   json.RawMessage `json:"agent_card"`
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Status      string          `json:"status,omitempty"`
	Score       float64         `json:"score"`
	MatchedTags []string        `json:"matched_tags"`
	// ExpandedTags are matched through alias, parent or prefix expansion,
	// apart from the direct ones in MatchedTags.
	ExpandedTags []string `json:"expanded_tags,omitempty"`
	// ScoreComponents by name: tag, context, example, reputation,
	// availability, rating, freshness.
	ScoreComponents map[string]float64 `json:"score_components,omitempty"`
	Weights         map[string]float64 `json:"weights,omitempty"`
	MatchedExamples []MatchedExample   `json:"matched_examples,omitempty"`
	Freshness       *Freshness         `json:"freshness,omitempty"`
	Redacted        bool               `json:"redacted,omitempty"`
	// OriginService and ReceivedAt record federation provenance: the
	// service whose answer this result is, when not the answering one.
	OriginService string `json:"origin_service,omitempty"`
	ReceivedAt    string `json:"received_at,omitempty"`
	// Sources list every service that returned the agent in a merged
	// network-scope discovery, each with its own rank and score (scores
	// are local to each service, discovery profile 6.1), and
	// FusionScore the reciprocal rank fusion the merged list is sorted by.
	Sources     []ResultSource `json:"sources,omitempty"`
	FusionScore float64        `json:"fusion_score,omitempty"`
	// Probe is the liveness the service measured before answering, when
	// the request asked for it (DiscoverRequest.Probe).
	Probe *Probe `json:"probe,omitempty"`
}

// Probe is the evidence of a ping the discovery service sent a candidate
// before answering: the measured round trip, or why there was none, and
// the free capacity it knows of (max_concurrent_tasks less the calls the
// service has in flight to the agent; absent without a limit).
type Probe struct {
	OK           bool    `json:"ok"`
	RTTMillis    float64 `json:"rtt_ms,omitempty"`
	FreeCapacity *int    `json:"free_capacity,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// ResultSource is one service's answer for an agent in a merged
// discovery: the service (an agent id, or "dht" for the DHT's tag
// providers), when its answer was received, the agent's 1-based rank in
// that answer and the service's own score.
type ResultSource struct {
	OriginService string  `json:"origin_service"`
	ReceivedAt    string  `json:"received_at,omitempty"`
	Rank          int     `json:"rank"`
	Score         float64 `json:"score"`
}

// OriginDHT is the ResultSource.OriginService of cards found through the
// DHT's tag providers.
const OriginDHT = "dht"

// MatchedExample is an example task that matched the query.
type MatchedExample struct {
	ID    string  `json:"id,omitempty"`
	Score float64 `json:"score"`
	Text  string  `json:"text,omitempty"`
}

// Freshness is a result's freshness evidence (discovery profile 6.1); the
// times are RFC 3339.
type Freshness struct {
	MetadataUpdatedAt string `json:"metadata_updated_at,omitempty"`
	IndexedAt         string `json:"indexed_at,omitempty"`
	ExpiresAt         string `json:"expires_at,omitempty"`
	Stale             bool   `json:"stale"`
}

// MarshalJSON writes r with the profile's candidates always present: a
// response built with Results only gets one candidate per result, without
// bindings (the cards are not at hand here); a nil list is [].
func (r DiscoverResponse) MarshalJSON() ([]byte, error) {
	type plain DiscoverResponse
	p := plain(r)
	if p.Results == nil {
		p.Results = []DiscoverResult{}
	}
	if p.Candidates == nil {
		p.Candidates = make([]Candidate, len(p.Results))
		for i, res := range p.Results {
			p.Candidates[i] = CandidateOf(res, nil)
		}
	}
	return json.Marshal(p)
}

// Candidate is one ranked agent in the discovery profile's shape
// (section 6.1, Table 7), sent in DiscoverResponse.Candidates beside
// ADP's Results so that a client of either draft parses the answer.
// MatchedTags holds the tags matched directly and by expansion.
type Candidate struct {
	ID              string             `json:"id"`
	Name            string             `json:"name,omitempty"`
	Description     string             `json:"description,omitempty"`
	Bindings        []Binding          `json:"bindings"`
	Score           float64            `json:"score"`
	ScoreComponents map[string]float64 `json:"score_components,omitempty"`
	MatchedTags     []string           `json:"matched_tags,omitempty"`
	MatchedExamples []MatchedExample   `json:"matched_examples,omitempty"`
	Redacted        bool               `json:"redacted,omitempty"`
	Status          string             `json:"status,omitempty"`
	Freshness       *Freshness         `json:"freshness,omitempty"`
	// Sources carry a merged network-scope candidate's provenance and
	// Probe the measured liveness, as in DiscoverResult (adpnode
	// extensions).
	Sources []ResultSource `json:"sources,omitempty"`
	Probe   *Probe         `json:"probe,omitempty"`
}

// Binding is a protocol binding of a candidate (discovery profile 4.6,
// Table 4), from one endpoint of its card.
type Binding struct {
	Protocol string `json:"protocol"`
	Endpoint string `json:"endpoint"`
	Priority *int   `json:"priority,omitempty"`
}

// BindingsOf returns the bindings of c's endpoints, never nil.
func BindingsOf(c *Card) []Binding {
	out := make([]Binding, 0, len(c.Endpoints))
	for _, e := range c.Endpoints {
		out = append(out, Binding{Protocol: e.Protocol, Endpoint: e.URI, Priority: e.Priority})
	}
	return out
}

// CandidateOf returns r in the profile's shape, with the bindings of its
// agent's card (BindingsOf).
func CandidateOf(r DiscoverResult, bindings []Binding) Candidate {
	if bindings == nil {
		bindings = []Binding{}
	}
	cd := Candidate{
		ID: r.ID, Name: r.Name, Description: r.Description, Bindings: bindings, Score: r.Score,
		ScoreComponents: r.ScoreComponents, MatchedExamples: r.MatchedExamples, Redacted: r.Redacted,
		Status: r.Status, Freshness: r.Freshness, Sources: r.Sources, Probe: r.Probe,
	}
	if len(r.MatchedTags)+len(r.ExpandedTags) > 0 {
		cd.MatchedTags = append(append(make([]string, 0, len(r.MatchedTags)+len(r.ExpandedTags)), r.MatchedTags...), r.ExpandedTags...)
	}
	return cd
}
