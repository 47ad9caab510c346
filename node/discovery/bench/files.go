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

// Options choose the ranker of a run.
type Options struct {
	// Baseline ranks with plain BM25: equal field weights, no stemming,
	// no relevance floor, the semantic factor alone, and min_score 0.
	Baseline bool
	// RelevanceFloor is the share of the best relevance a result needs;
	// negative keeps the default (or the baseline's 0).
	RelevanceFloor float64
}

// scoringOptions returns the scoring options of a run.
func (o Options) scoringOptions() []scoring.Option {
	opts := []scoring.Option{scoring.WithTags(tag.Default())}
	if o.Baseline {
		opts = append(opts,
			scoring.WithWeights(scoring.Weights{Semantic: 1}),
			scoring.WithFieldWeights(scoring.FieldWeights{Name: 1, Skills: 1, Description: 1, Tools: 1, Schema: 1}),
			scoring.WithStemming(false),
			scoring.WithRelevanceFloor(0))
	}
	if o.RelevanceFloor >= 0 {
		opts = append(opts, scoring.WithRelevanceFloor(o.RelevanceFloor))
	}
	return opts
}

// Corpus is an index of the cards of a file.
type Corpus struct {
	opts Options
	idx  *index.Index
	// Took is the time spent reading and indexing the cards.
	Took time.Duration
}

// Len returns the number of indexed cards.
func (c *Corpus) Len() int { return c.idx.Len() }

// LoadCards indexes the cards of path, one card JSON per line (blank
// lines skipped). Errors name the file and line.
func LoadCards(path string, o Options) (*Corpus, error) {
	idx, err := index.New(o.scoringOptions()...)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	err = readLines(path, func(line []byte) error {
		c, err := adp.ParseCard(line)
		if err != nil {
			return err
		}
		return idx.Upsert(discovery.DocFromCard(c, time.Time{}, time.Time{}))
	})
	if err != nil {
		return nil, err
	}
	return &Corpus{opts: o, idx: idx, Took: time.Since(start)}, nil
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
		if c.opts.Baseline {
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
