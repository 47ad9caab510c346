package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/eval"
	"github.com/adpnode/adpnode/scoring/index"
)

// Options choose the full ranker of a run.
type Options struct {
	// RelevanceFloor is the share of the best relevance a result needs;
	// negative keeps the default.
	RelevanceFloor float64
}

// scoringOptions returns the scoring options of the full ranker: the
// defaults, with the relevance floor of RelevanceFloor.
func (o Options) scoringOptions() []scoring.Option {
	opts := []scoring.Option{scoring.WithTags(tag.Default())}
	if o.RelevanceFloor >= 0 {
		opts = append(opts, scoring.WithRelevanceFloor(o.RelevanceFloor))
	}
	return opts
}

// baselineOptions are the plain BM25 baseline's: the semantic factor
// alone, Snowball stemming (without the derivational pairs) and
// stopwords, no identifier splitting, every repeated sentence counted,
// greetings kept in queries, lengths normalised against their mean, no
// relevance floor. Its documents are
// flattened by baselineDoc, so that BM25 runs over one bag of every
// word of the card.
func baselineOptions() []scoring.Option {
	return []scoring.Option{scoring.WithTags(tag.Default()),
		scoring.WithWeights(scoring.Weights{Semantic: 1}),
		scoring.WithIdentifierSplitting(false),
		scoring.WithDerivation(false),
		scoring.WithRepeatedSentences(true),
		scoring.WithConversationalWords(false),
		scoring.WithMeanPivot(true),
		scoring.WithRelevanceFloor(0)}
}

// baselineDoc is the card as one text field: name, description, skills,
// tools with every string and property name of their input schemas at
// any depth, and examples with their tags.
func baselineDoc(c *adp.Card) scoring.Doc {
	var b strings.Builder
	add := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	add(c.Name)
	add(c.Description)
	for _, s := range c.Skills {
		add(strings.ReplaceAll(s, "/", " "))
	}
	for _, t := range c.Tools {
		add(t.Name)
		add(t.Description)
		var v any
		if json.Unmarshal(t.InputSchema, &v) == nil {
			jsonText(v, add)
		}
	}
	for _, e := range c.Examples {
		add(e.Text)
		for _, s := range e.Tags {
			add(strings.ReplaceAll(s, "/", " "))
		}
	}
	return scoring.Doc{ID: c.ID, Description: b.String()}
}

// jsonText calls add for every string and object key in v.
func jsonText(v any, add func(string)) {
	switch x := v.(type) {
	case string:
		add(x)
	case []any:
		for _, e := range x {
			jsonText(e, add)
		}
	case map[string]any:
		for k, e := range x {
			add(k)
			jsonText(e, add)
		}
	}
}

// Corpus is an index of the cards of a file.
type Corpus struct {
	idx *index.Index
	// baseline: every search ranks everything a term matches (min_score 0).
	baseline bool
	// Took is the time spent reading and indexing the cards.
	Took time.Duration
}

// Len returns the number of indexed cards.
func (c *Corpus) Len() int { return c.idx.Len() }

// LoadCards indexes the cards of path, one card JSON per line (blank
// lines skipped), for the full ranker: each card through
// discovery.DocFromCard. Errors name the file and line.
func LoadCards(path string, o Options) (*Corpus, error) {
	return loadCards(path, o.scoringOptions(), func(c *adp.Card) scoring.Doc {
		return discovery.DocFromCard(c, time.Time{}, time.Time{})
	}, false)
}

// LoadBaseline indexes the cards of path like LoadCards, for the plain
// BM25 baseline: each card as one bag of all its text (name,
// description, skills, tools with every string and property name of their
// input schemas, examples), stemmed, stopwords removed, scored by the
// text factor alone with no relevance floor; its searches rank everything
// a term matches.
func LoadBaseline(path string) (*Corpus, error) {
	return loadCards(path, baselineOptions(), baselineDoc, true)
}

func loadCards(path string, opts []scoring.Option, doc func(*adp.Card) scoring.Doc, baseline bool) (*Corpus, error) {
	idx, err := index.New(opts...)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	err = readLines(path, func(line []byte) error {
		c, err := adp.ParseCard(line)
		if err != nil {
			return err
		}
		return idx.Upsert(doc(c))
	})
	if err != nil {
		return nil, err
	}
	return &Corpus{idx: idx, baseline: baseline, Took: time.Since(start)}, nil
}

// query is one line of a queries file.
type query struct {
	ID      string          `json:"id"`
	Request json.RawMessage `json:"request"`
}

// Ranking is the outcome of ranking a queries file.
type Ranking struct {
	// Runs are the ranked agent ids per query id.
	Runs map[string][]string
	// P50 and P99 are percentiles of the search latency.
	P50, P99 time.Duration
}

// Rank ranks every query of the queries file at path, each to at least
// depth results (raising the request's limit), and writes the TREC run
// lines (query_id Q0 agent_id rank score tag) to run.
func (c *Corpus) Rank(path string, depth int, run io.Writer, tag string) (*Ranking, error) {
	runs := make(map[string][]string)
	var lat []time.Duration
	now := time.Now()
	err := readLines(path, func(line []byte) error {
		var bq query
		if err := json.Unmarshal(line, &bq); err != nil {
			return err
		}
		if bq.ID == "" || strings.ContainsAny(bq.ID, " \t\n") {
			return fmt.Errorf("query id %q is empty or has white space", bq.ID)
		}
		req, err := adp.ParseDiscoverRequest(bq.Request)
		if err != nil {
			return err
		}
		q, _ := discovery.QueryFromRequest(req)
		q.Limit = max(q.Limit, depth)
		if c.baseline {
			q.MinScore = 0 // rank everything a term matches
		}
		t := time.Now()
		res := c.idx.Search(q, nil, now)
		lat = append(lat, time.Since(t))
		ids := make([]string, len(res.Hits))
		scores := make([]float64, len(res.Hits))
		for i, h := range res.Hits {
			ids[i], scores[i] = h.ID, h.Score
		}
		runs[bq.ID] = ids
		return eval.WriteRun(run, bq.ID, ids, scores, tag)
	})
	if err != nil {
		return nil, err
	}
	return &Ranking{Runs: runs, P50: eval.Percentile(lat, 50), P99: eval.Percentile(lat, 99)}, nil
}

// Metrics are the retrieval metrics of a run over its judged queries.
type Metrics struct {
	Queries                    int
	NDCG10, Recall10, Recall50 float64
}

// Evaluate scores runs against the relevance judgements of the file at
// path (query_id<TAB>agent_id<TAB>relevance).
func Evaluate(runs map[string][]string, path string) (Metrics, error) {
	f, err := os.Open(path)
	if err != nil {
		return Metrics{}, err
	}
	defer f.Close()
	qrels, err := eval.ReadQrels(f)
	if err != nil {
		return Metrics{}, fmt.Errorf("%s: %w", path, err)
	}
	m := eval.Evaluate(runs, qrels)
	return Metrics{Queries: m.Queries, NDCG10: m.NDCG10, Recall10: m.Recall10, Recall50: m.Recall50}, nil
}

// readLines calls fn for every non-blank line of the file at path; an
// error names the file and line.
func readLines(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*adp.MaxCardSize)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
