package scoring

import "time"

// Limits on a query. Search clamps values beyond them and says so in
// Result.Warnings.
const (
	DefaultLimit    = 10
	MaxLimit        = 1000
	DefaultMinScore = 0.1
	// MaxQueryTerms is the number of distinct text terms a query is
	// scored with: of a longer query, the most informative (SelectTerms).
	MaxQueryTerms = 64
	MaxQueryTags  = 64 // tags kept from each tag list
	// MaxQueryBytes is the octets of Query.Text analysed: an AIP message
	// (65,535 octets), the largest request a peer can send.
	MaxQueryBytes = 65535
	// MaxMatchedExamples is the number of matching examples reported per
	// hit, best first.
	MaxMatchedExamples = 3
)

// Doc is the searchable view of one agent card. The index keeps only what
// it needs to score (term statistics, canonical tags, times), not the
// text itself.
type Doc struct {
	ID          string
	Name        string
	Description string
	Tags        []string // skill tags as declared
	Tools       []ToolText
	Examples    []ExampleText
	Protocols   []string // endpoint protocols
	Status      string   // active|inactive|suspended|deprecated|testing or ""
	// MaxConcurrent is the card's constraints.max_concurrent_tasks; 0
	// means no limit.
	MaxConcurrent int
	UpdatedAt     time.Time // metadata.updated_at; zero when absent
	IndexedAt     time.Time // when this node received the card
	ExpiresAt     time.Time // zero: never expires
	// Revoked marks an ADP §6.4 revocation: Upsert removes the agent.
	Revoked bool
}

// ToolText is the searchable part of a tool descriptor.
type ToolText struct {
	Name        string
	Description string
	// InputProps is the text of the input schema: property names,
	// titles, descriptions, enum values and examples at any depth
	// (SchemaText).
	InputProps []string
}

// ExampleText is one example task (discovery profile §4.5).
type ExampleText struct {
	ID   string
	Text string
	Tags []string
}

// Signals are this node's own records about an agent: calls it made,
// ratings it received, tasks completed, when the agent was last reachable
// and how many tasks it is running. Self-declared reputation in a card is
// never a signal.
type Signals struct {
	Calls, Successes, Failures int
	CompletedTasks             int
	RatingSum, RatingCount     int // stars 1..5
	// LastSeen is when this node last heard from the agent: a call
	// answered, a greeting, a re-broadcast of its card.
	LastSeen    time.Time
	ActiveTasks int
	// Connected reports a live connection to the agent's peer now.
	Connected bool
	// ConsecutiveFailures counts this node's calls to the agent that
	// failed since the last one that succeeded; at FailuresUnavailable
	// the agent is unavailable whatever else was heard of it.
	ConsecutiveFailures int
}

// IsZero reports whether s records nothing.
func (s Signals) IsZero() bool {
	return s.Calls == 0 && s.Successes == 0 && s.Failures == 0 && s.CompletedTasks == 0 &&
		s.RatingSum == 0 && s.RatingCount == 0 && s.LastSeen.IsZero() && s.ActiveTasks == 0 &&
		!s.Connected && s.ConsecutiveFailures == 0
}

// SignalFunc returns the signals of an agent. It is called only for
// candidates that reach exact scoring, under the index's read lock, so it
// must not call back into the index.
type SignalFunc func(id string) Signals

// Query is a discovery request in scoring terms.
type Query struct {
	Text          string
	Tags          []string // soft tags: the tag factor counts how many match
	RequiredTags  []string // hard filter; also counted by the tag factor
	PreferredTags []string // soft, counted by the tag factor like Tags
	ExcludedTags  []string // hard filter: no result matches any of them
	Protocols     []string // when non-empty, a result has at least one
	// MaxAge excludes results indexed longer ago than this (0: no limit).
	MaxAge time.Duration
	// AllowStale returns expired records too (with freshness 0).
	AllowStale bool
	// Exclude is a hard filter on ids: no result is one of them. It is
	// applied before the limit, so a caller that excludes what it holds
	// gets the best of the rest.
	Exclude  map[string]struct{}
	Limit    int     // 0: DefaultLimit
	MinScore float64 // results below are dropped; use a negative value for 0
	// RelevanceFloor, when set, replaces the floor the model derives
	// from WithRelevanceFloor and the query's aspects (Model.RelevanceFloor);
	// 0 turns the floor off.
	RelevanceFloor *float64
}

// Components are the factors of one hit, each in [0, 1].
type Components struct {
	Tag          float64
	Context      float64 // BM25F over name, description, skills, tools, schema
	Example      float64 // best single example or tool (discovery profile §7.3)
	Reputation   float64
	Availability float64
	Rating       float64
	Freshness    float64
}

// Map returns the components under the discovery profile's names.
func (c Components) Map() map[string]float64 {
	return map[string]float64{
		"tag": c.Tag, "context": c.Context, "example": c.Example, "reputation": c.Reputation,
		"availability": c.Availability, "rating": c.Rating, "freshness": c.Freshness,
	}
}

// Dot returns sum(w[k]*c[k]) in a fixed order; a hit's Score is exactly
// Weights.Dot(Components).
func (c Components) Dot(w Components) float64 {
	return w.Tag*c.Tag + w.Context*c.Context + w.Example*c.Example + w.Reputation*c.Reputation +
		w.Availability*c.Availability + w.Rating*c.Rating + w.Freshness*c.Freshness
}

// ExampleMatch is one example, or one tool, that matched the query text.
type ExampleMatch struct {
	Index int     // position in Doc.Examples, or in Doc.Tools when Tool
	ID    string  // Doc.Examples[Index].ID
	Score float64 // normalized like Components.Example
	Tool  bool    // a tool, scored as a passage of its own
}

// Hit is one ranked result with its evidence.
type Hit struct {
	ID    string
	Score float64
	// Components are the factors; Weights the effective weights used for
	// this hit, so that Score == Components.Dot(Weights).
	Components Components
	Weights    Components
	// MatchedTags are query tags matched directly (same tag as declared);
	// ExpandedTags those matched through alias, parent or prefix
	// expansion. Both hold the query's tags, lower-cased.
	MatchedTags  []string
	ExpandedTags []string
	Examples     []ExampleMatch
	Stale        bool // expired, returned because AllowStale
}

// Result is the answer to a query.
type Result struct {
	Hits []Hit
	// Candidates counts the agents examined that passed the filters, the
	// relevance gate and the relevance floor (the naive scan examines
	// them all); Scored those also fully scored (past the load filter).
	Candidates, Scored int
	// Skipped counts the postings max-score pruning did not evaluate.
	Skipped int
	// Released counts the tag matches let go before the terms were read,
	// their score bound being below the k-th best score.
	Released int
	Warnings []string
	// RelevanceFloor is the relevance floor applied (Plan.Floor).
	RelevanceFloor float64
	// Weights are the effective weights for this query: the weight of a
	// relevance factor the query does not ask for (tags or text) moves to
	// the other one, or to the remaining factors when it has neither.
	Weights Weights
}
