package index_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func corpus() []scoring.Doc {
	return []scoring.Doc{
		{ID: "a1", Name: "Lingua Translator", Tags: []string{"nlp/translation", "python"},
			Description: "Translates documents between English and German.",
			Examples: []scoring.ExampleText{
				{ID: "ex1", Text: "Translate an invoice into German"},
				{ID: "ex2", Text: "Summarize a legal contract for a lawyer"},
			},
			Tools:     []scoring.ToolText{{Name: "translate", Description: "Translate text", InputProps: []string{"source_language", "target_language"}}},
			Protocols: []string{"aitp"}, MaxConcurrent: 2, IndexedAt: t0.Add(-time.Hour), Status: "active"},
		{ID: "a2", Name: "Sentiment Scout", Tags: []string{"nlp/sentiment-analysis"},
			Description: "Detects sentiment in product reviews.", Protocols: []string{"HTTPS"}, IndexedAt: t0.Add(-time.Minute)},
		{ID: "a3", Name: "Vision OCR", Tags: []string{"vision/ocr"},
			Description: "Reads text from scanned images.", Protocols: []string{"aitp", "https"}, IndexedAt: t0.Add(-time.Minute)},
		{ID: "a4", Name: "Py Helper", Tags: []string{"py"},
			Description: "Writes python code and unit tests.", Protocols: []string{"mcp"}, IndexedAt: t0.Add(-time.Minute)},
		{ID: "a5", Name: "Generic Language Agent", Tags: []string{"nlp"},
			Description: "General text tasks.", IndexedAt: t0.Add(-time.Minute)},
	}
}

// engines returns an index and a naive scorer over the same documents.
func engines(t testing.TB, docs []scoring.Doc, opts ...scoring.Option) (*index.Index, *scoring.Naive) {
	t.Helper()
	opts = append([]scoring.Option{scoring.WithTags(tag.Default())}, opts...)
	x, err := index.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	nv, err := scoring.NewNaive(opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := x.Upsert(d); err != nil {
			t.Fatal(err)
		}
		if err := nv.Upsert(d); err != nil {
			t.Fatal(err)
		}
	}
	return x, nv
}

// search runs q on both engines, checks that they agree and that the
// evidence adds up, and returns the index result.
func search(t *testing.T, x *index.Index, nv *scoring.Naive, q scoring.Query, sig scoring.SignalFunc) scoring.Result {
	t.Helper()
	r := x.Search(q, sig, t0)
	n := nv.Search(q, sig, t0)
	sameHits(t, r.Hits, n.Hits)
	checkEvidence(t, r)
	return r
}

func sameHits(t *testing.T, got, want []scoring.Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("index returned %d hits %v, naive %d %v", len(got), ids(got), len(want), ids(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || math.Abs(g.Score-w.Score) > 1e-9 || g.Components != w.Components ||
			!slices.Equal(g.MatchedTags, w.MatchedTags) || !slices.Equal(g.ExpandedTags, w.ExpandedTags) ||
			!slices.Equal(g.Examples, w.Examples) || g.Stale != w.Stale {
			t.Fatalf("hit %d: index %+v\nnaive %+v", i, g, w)
		}
	}
}

func checkEvidence(t *testing.T, r scoring.Result) {
	t.Helper()
	w := r.Weights
	if err := w.Validate(); err != nil && w != (scoring.Weights{}) {
		t.Errorf("effective weights %+v: %v", w, err)
	}
	for i, h := range r.Hits {
		if d := math.Abs(h.Components.Dot(h.Weights) - h.Score); d > 1e-9 {
			t.Errorf("hit %s: components . weights differs from score by %g", h.ID, d)
		}
		sum := 0.0
		for k, v := range h.Components.Map() {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Errorf("hit %s: component %s = %v outside [0,1]", h.ID, k, v)
			}
			sum += h.Weights.Map()[k]
		}
		if math.Abs(sum-1) > 1e-9 && w != (scoring.Weights{}) {
			t.Errorf("hit %s: weights sum to %v", h.ID, sum)
		}
		if i > 0 && h.Score > r.Hits[i-1].Score {
			t.Errorf("hits out of order at %d", i)
		}
	}
}

func ids(hs []scoring.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func find(hs []scoring.Hit, id string) *scoring.Hit {
	for i := range hs {
		if hs[i].ID == id {
			return &hs[i]
		}
	}
	return nil
}

func TestTagMatching(t *testing.T) {
	x, nv := engines(t, corpus())
	type m struct {
		matched, expanded []string
		factor            float64
	}
	tests := []struct {
		name string
		tags []string
		want map[string]m
	}{
		{"exact", []string{"nlp/translation"}, map[string]m{"a1": {[]string{"nlp/translation"}, nil, 1}}},
		{"parent", []string{"nlp"}, map[string]m{
			"a1": {nil, []string{"nlp"}, 1}, "a2": {nil, []string{"nlp"}, 1}, "a5": {[]string{"nlp"}, nil, 1}}},
		{"prefix", []string{"nlp/*"}, map[string]m{
			"a1": {nil, []string{"nlp/*"}, 1}, "a2": {nil, []string{"nlp/*"}, 1}, "a5": {nil, []string{"nlp/*"}, 1}}},
		{"no child to parent", []string{"nlp/sentiment-analysis/reviews"}, map[string]m{}},
		{"alias on the agent side", []string{"python"}, map[string]m{
			"a1": {[]string{"python"}, nil, 1}, "a4": {nil, []string{"python"}, 1}}},
		{"alias on the query side", []string{"PY"}, map[string]m{
			"a1": {nil, []string{"py"}, 1}, "a4": {[]string{"py"}, nil, 1}}},
		{"full path", []string{"coding/python"}, map[string]m{
			"a1": {nil, []string{"coding/python"}, 1}, "a4": {nil, []string{"coding/python"}, 1}}},
		{"category alias", []string{"cv/ocr"}, map[string]m{"a3": {nil, []string{"cv/ocr"}, 1}}},
		{"half", []string{"nlp/translation", "vision/ocr"}, map[string]m{
			"a1": {[]string{"nlp/translation"}, nil, 0.5}, "a3": {[]string{"vision/ocr"}, nil, 0.5}}},
		{"duplicates count once", []string{"python", "py", "Python"}, map[string]m{
			"a1": {[]string{"python"}, nil, 1}, "a4": {nil, []string{"python"}, 1}}},
		{"unknown", []string{"cooking"}, map[string]m{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := search(t, x, nv, scoring.Query{Tags: tt.tags, MinScore: -1, Limit: 100}, nil)
			if len(r.Hits) != len(tt.want) {
				t.Fatalf("hits %v, want %d", ids(r.Hits), len(tt.want))
			}
			for id, w := range tt.want {
				h := find(r.Hits, id)
				if h == nil {
					t.Fatalf("%s missing from %v", id, ids(r.Hits))
				}
				if !slices.Equal(h.MatchedTags, w.matched) || !slices.Equal(h.ExpandedTags, w.expanded) {
					t.Errorf("%s: matched %q expanded %q, want %q %q", id, h.MatchedTags, h.ExpandedTags, w.matched, w.expanded)
				}
				if h.Components.Tag != w.factor {
					t.Errorf("%s: tag factor %v, want %v", id, h.Components.Tag, w.factor)
				}
			}
			if r.Weights.Semantic != 0 || math.Abs(r.Weights.Tag-0.55) > 1e-12 {
				t.Errorf("tag-only query weights %+v, want the semantic weight moved to tag", r.Weights)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	docs := corpus()
	docs[1].ExpiresAt = t0.Add(-time.Second) // a2 expired
	x, nv := engines(t, docs)
	busy := func(id string) scoring.Signals {
		if id == "a1" {
			return scoring.Signals{ActiveTasks: 2, LastSeen: t0}
		}
		return scoring.Signals{}
	}
	tests := []struct {
		name string
		q    scoring.Query
		sig  scoring.SignalFunc
		want []string // sorted ids
	}{
		{"baseline", scoring.Query{Tags: []string{"nlp", "vision"}}, nil, []string{"a1", "a3", "a5"}},
		{"allow stale", scoring.Query{Tags: []string{"nlp", "vision"}, AllowStale: true}, nil, []string{"a1", "a2", "a3", "a5"}},
		{"required", scoring.Query{Text: "text", RequiredTags: []string{"vision"}}, nil, []string{"a3"}},
		{"required alone", scoring.Query{RequiredTags: []string{"nlp"}}, nil, []string{"a1", "a5"}},
		{"required unknown", scoring.Query{Text: "text", RequiredTags: []string{"cooking"}}, nil, nil},
		{"excluded parent", scoring.Query{Tags: []string{"nlp", "vision"}, ExcludedTags: []string{"nlp"}}, nil, []string{"a3"}},
		{"excluded alias", scoring.Query{Text: "python code translate", ExcludedTags: []string{"py"}}, nil, nil},
		{"protocols", scoring.Query{Tags: []string{"nlp", "vision", "coding"}, Protocols: []string{"https", "mcp"}}, nil, []string{"a3", "a4"}},
		{"protocol case", scoring.Query{Tags: []string{"vision"}, Protocols: []string{"HTTPS"}}, nil, []string{"a3"}},
		{"max age", scoring.Query{Tags: []string{"nlp", "vision"}, MaxAge: 10 * time.Minute}, nil, []string{"a3", "a5"}},
		{"load", scoring.Query{Tags: []string{"nlp", "vision"}}, busy, []string{"a3", "a5"}},
		{"min score", scoring.Query{Tags: []string{"nlp"}, MinScore: 0.99}, nil, nil},
		{"limit", scoring.Query{Tags: []string{"nlp/translation"}, Limit: 1}, nil, []string{"a1"}},
		{"filter only", scoring.Query{Protocols: []string{"aitp"}}, nil, []string{"a1", "a3"}},
		{"text gate", scoring.Query{Text: "scanned images"}, nil, []string{"a3"}},
		{"stopwords only", scoring.Query{Text: "the of and"}, nil, []string{"a1", "a3", "a4", "a5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := search(t, x, nv, tt.q, tt.sig)
			got := ids(r.Hits)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hits %v, want %v", got, tt.want)
			}
		})
	}
	r := x.Search(scoring.Query{Tags: []string{"nlp"}, AllowStale: true}, nil, t0)
	if h := find(r.Hits, "a2"); h == nil || !h.Stale || h.Components.Freshness != 0 {
		t.Errorf("stale hit %+v, want stale with freshness 0", h)
	}
	if r := x.Search(scoring.Query{Text: "the of and"}, nil, t0); len(r.Warnings) == 0 {
		t.Error("no warning for a query without searchable terms")
	}
	if r := x.Search(scoring.Query{Tags: []string{"nlp"}, Limit: 5000}, nil, t0); len(r.Warnings) == 0 {
		t.Error("no warning for a clamped limit")
	}
}

func TestUpdateDeleteRevoke(t *testing.T) {
	x, nv := engines(t, corpus())
	q := scoring.Query{Tags: []string{"vision/ocr"}}
	if r := search(t, x, nv, q, nil); len(r.Hits) != 1 {
		t.Fatalf("hits %v", ids(r.Hits))
	}
	d := corpus()[2]
	d.Tags = []string{"audio/speech-to-text"}
	for _, e := range []interface{ Upsert(scoring.Doc) error }{x, nv} {
		if err := e.Upsert(d); err != nil {
			t.Fatal(err)
		}
	}
	if r := x.Search(q, nil, t0); len(r.Hits) != 0 {
		t.Fatalf("old tag still matches after update: %v", ids(r.Hits))
	}
	if r := x.Search(scoring.Query{Tags: []string{"stt"}}, nil, t0); len(r.Hits) != 1 || r.Hits[0].ID != "a3" {
		t.Fatalf("new tag does not match: %v", ids(r.Hits))
	}
	d.Revoked = true
	if err := x.Upsert(d); err != nil {
		t.Fatal(err)
	}
	if x.Len() != 4 {
		t.Fatalf("Len after revocation = %d, want 4", x.Len())
	}
	if !x.Delete("a1") || x.Delete("a1") || x.Len() != 3 {
		t.Fatal("Delete does not report presence")
	}
	if r := x.Search(scoring.Query{Text: "translate invoice"}, nil, t0); len(r.Hits) != 0 {
		t.Fatalf("deleted agent returned: %v", ids(r.Hits))
	}
	if err := x.Upsert(scoring.Doc{}); err == nil {
		t.Fatal("document without id accepted")
	}
}

func TestExpire(t *testing.T) {
	docs := corpus()
	docs[0].ExpiresAt = t0.Add(time.Minute)
	docs[1].ExpiresAt = t0.Add(time.Hour)
	x, _ := engines(t, docs)
	if n := x.Expire(t0.Add(2 * time.Minute)); n != 1 || x.Len() != 4 {
		t.Fatalf("Expire removed %d, Len %d", n, x.Len())
	}
	if r := x.Search(scoring.Query{Tags: []string{"nlp/translation"}, AllowStale: true}, nil, t0); len(r.Hits) != 0 {
		t.Fatal("expired agent still indexed")
	}
}

func TestSemantic(t *testing.T) {
	x, nv := engines(t, corpus())
	r := search(t, x, nv, scoring.Query{Text: "summarize a legal contract", MinScore: -1}, nil)
	h := find(r.Hits, "a1")
	if h == nil {
		t.Fatalf("a1 not found: %v", ids(r.Hits))
	}
	if h.Components.Context != 0 || h.Components.Example <= 0.5 {
		t.Errorf("components %+v: want the example to carry the match", h.Components)
	}
	if h.Weights.Example != r.Weights.Semantic || h.Weights.Context != 0 {
		t.Errorf("weights %+v: want the semantic weight on the example", h.Weights)
	}
	if len(h.Examples) != 1 || h.Examples[0].Index != 1 {
		t.Errorf("matched examples %+v, want example 1", h.Examples)
	}
	if r.Weights.Tag != 0 || math.Abs(r.Weights.Semantic-0.55) > 1e-12 {
		t.Errorf("text-only weights %+v", r.Weights)
	}
	// Name and skills outrank the description.
	r = search(t, x, nv, scoring.Query{Text: "translator german", MinScore: -1}, nil)
	if len(r.Hits) == 0 || r.Hits[0].ID != "a1" {
		t.Errorf("translator query ranks %v", ids(r.Hits))
	}
	// Tool input-schema property names are searchable.
	r = search(t, x, nv, scoring.Query{Text: "source target", MinScore: -1}, nil)
	if len(r.Hits) == 0 || r.Hits[0].ID != "a1" {
		t.Errorf("schema query ranks %v", ids(r.Hits))
	}
}

// The best example counts, not the average: unrelated examples beside a
// matching one leave the example factor unchanged.
func TestBestExampleNotAverage(t *testing.T) {
	match := scoring.ExampleText{Text: "book a table at an italian restaurant"}
	docs := []scoring.Doc{
		{ID: "one", Name: "A", Examples: []scoring.ExampleText{match}},
		{ID: "many", Name: "B", Examples: []scoring.ExampleText{
			{Text: "convert a video to a gif file"}, match, {Text: "check the weather forecast for tomorrow"}}},
	}
	x, nv := engines(t, docs)
	r := search(t, x, nv, scoring.Query{Text: "italian restaurant table"}, nil)
	if len(r.Hits) != 2 {
		t.Fatalf("hits %v", ids(r.Hits))
	}
	if a, b := find(r.Hits, "one").Components.Example, find(r.Hits, "many").Components.Example; a != b || a == 0 {
		t.Fatalf("example factor one=%v many=%v, want equal and positive", a, b)
	}
	if ex := find(r.Hits, "many").Examples; len(ex) != 1 || ex[0].Index != 1 {
		t.Fatalf("matched examples %+v", ex)
	}
}

func TestSignalsRank(t *testing.T) {
	docs := []scoring.Doc{
		{ID: "good", Name: "Weather Forecast", Tags: []string{"analytical/forecasting"}},
		{ID: "bad", Name: "Weather Forecast", Tags: []string{"analytical/forecasting"}},
		{ID: "new", Name: "Weather Forecast", Tags: []string{"analytical/forecasting"}},
	}
	x, nv := engines(t, docs)
	sig := func(id string) scoring.Signals {
		switch id {
		case "good":
			return scoring.Signals{Calls: 50, Successes: 50, CompletedTasks: 50, RatingCount: 10, RatingSum: 50, LastSeen: t0}
		case "bad":
			return scoring.Signals{Calls: 50, Successes: 5, Failures: 45, CompletedTasks: 50, RatingCount: 10, RatingSum: 10, LastSeen: t0}
		}
		return scoring.Signals{LastSeen: t0}
	}
	r := search(t, x, nv, scoring.Query{Text: "weather", Tags: []string{"forecasting"}}, sig)
	if got := ids(r.Hits); !slices.Equal(got, []string{"good", "new", "bad"}) {
		t.Fatalf("ranking %v, want good, new (cold start), bad", got)
	}
	if h := find(r.Hits, "new"); h.Components.Reputation != 0.7 || h.Components.Availability != 1 {
		t.Errorf("cold start components %+v", h.Components)
	}
}

// Signals pushed into the index (before or after the agent is indexed)
// rank like pulled ones.
func TestPushedSignals(t *testing.T) {
	good := scoring.Signals{Calls: 50, Successes: 50, CompletedTasks: 50, RatingCount: 10, RatingSum: 50, LastSeen: t0}
	x, err := index.New(scoring.WithTags(tag.Default()))
	if err != nil {
		t.Fatal(err)
	}
	x.SetSignals("b", good) // before b exists
	for _, id := range []string{"a", "b", "c"} {
		if err := x.Upsert(scoring.Doc{ID: id, Name: "Weather Forecast"}); err != nil {
			t.Fatal(err)
		}
	}
	q := scoring.Query{Text: "weather"}
	if got := ids(x.Search(q, nil, t0).Hits); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Fatalf("ranking %v, want b first", got)
	}
	x.SetSignals("c", good) // after c exists
	x.SetSignals("b", scoring.Signals{})
	if got := ids(x.Search(q, nil, t0).Hits); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Fatalf("ranking %v, want c first", got)
	}
	x.SetSignals("a", scoring.Signals{ActiveTasks: 3, LastSeen: t0})
	if err := x.Upsert(scoring.Doc{ID: "a", Name: "Weather Forecast", MaxConcurrent: 3}); err != nil {
		t.Fatal(err)
	}
	if got := ids(x.Search(q, nil, t0).Hits); !slices.Equal(got, []string{"c", "b"}) {
		t.Fatalf("ranking %v, want the overloaded agent filtered", got)
	}
}

func TestHostileQuery(t *testing.T) {
	x, nv := engines(t, corpus())
	many := make([]string, 500)
	for i := range many {
		many[i] = strings.Repeat("t", i%300)
	}
	q := scoring.Query{Text: strings.Repeat("translate ", 5000), Tags: many, RequiredTags: many[:3], PreferredTags: many,
		ExcludedTags: many, Protocols: many, Limit: -4, MinScore: math.NaN()}
	r := search(t, x, nv, q, nil)
	if len(r.Warnings) == 0 {
		t.Error("no warnings for an oversized query")
	}
}

// TestTagSpellings ranks an agent declaring "Text_Analysis" and "py" for
// every spelling adp/tag's taxonomy maps to the same canonical tag, the
// same spellings the DHT finds it under; without the taxonomy tags match
// only as spelled.
func TestTagSpellings(t *testing.T) {
	docs := []scoring.Doc{
		{ID: "a1", Name: "Analyst", Tags: []string{"Text_Analysis", "py"}},
		{ID: "a2", Name: "Painter", Tags: []string{"creative/design"}},
	}
	x, nv := engines(t, docs)
	for _, q := range []string{"text-analysis", "Text_Analysis", "text analysis", "python", "Python", "coding/python", "coding"} {
		for name, res := range map[string]scoring.Result{
			"index": x.Search(scoring.Query{Tags: []string{q}}, nil, t0),
			"naive": nv.Search(scoring.Query{Tags: []string{q}}, nil, t0),
		} {
			if len(res.Hits) != 1 || res.Hits[0].ID != "a1" || res.Hits[0].Components.Tag != 1 {
				t.Errorf("%s: tag %q: hits %+v, want a1 alone with tag factor 1", name, q, res.Hits)
			}
		}
	}
	plain, err := index.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := plain.Upsert(d); err != nil {
			t.Fatal(err)
		}
	}
	if res := plain.Search(scoring.Query{Tags: []string{"python"}}, nil, t0); len(res.Hits) != 0 {
		t.Errorf("without tags: python = %+v, want no hit", res.Hits)
	}
	if res := plain.Search(scoring.Query{Tags: []string{"Text_Analysis"}}, nil, t0); len(res.Hits) != 1 {
		t.Errorf("without tags: the declared spelling = %+v, want one hit", res.Hits)
	}
}
