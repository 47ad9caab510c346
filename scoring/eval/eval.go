// Package eval measures ranking quality and latency for discovery
// benchmarks: TREC-style qrels and run files, nDCG@k and Recall@k, and
// latency percentiles. It is pure and holds no state.
package eval

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Qrels maps query id -> document id -> graded relevance (> 0 relevant).
type Qrels map[string]map[string]int

// MaxLine bounds one line of a qrels or run file.
const MaxLine = 1 << 20

// ErrFormat reports a malformed line.
var ErrFormat = errors.New("eval: malformed line")

// ReadQrels reads "query_id<TAB>doc_id<TAB>relevance" lines; the TREC
// form with an iteration column ("query_id 0 doc_id relevance") is
// accepted too. Blank lines and lines starting with # are skipped.
func ReadQrels(r io.Reader) (Qrels, error) {
	q := make(Qrels)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) == 4 {
			f = []string{f[0], f[2], f[3]}
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%w %d: want 3 fields, have %d", ErrFormat, n, len(f))
		}
		rel, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("%w %d: relevance %q", ErrFormat, n, f[2])
		}
		if q[f[0]] == nil {
			q[f[0]] = make(map[string]int)
		}
		q[f[0]][f[1]] = rel
	}
	return q, sc.Err()
}

// NDCG is the normalized discounted cumulative gain of the first k
// ranked ids, with gain 2^rel - 1 and discount log2(rank + 1).
func NDCG(ranked []string, rels map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		if r := rels[id]; r > 0 {
			dcg += (math.Exp2(float64(r)) - 1) / math.Log2(float64(i)+2)
		}
	}
	var ideal []int
	for _, r := range rels {
		if r > 0 {
			ideal = append(ideal, r)
		}
	}
	slices.SortFunc(ideal, func(a, b int) int { return b - a })
	idcg := 0.0
	for i, r := range ideal[:min(k, len(ideal))] {
		idcg += (math.Exp2(float64(r)) - 1) / math.Log2(float64(i)+2)
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall is the share of the relevant ids found in the first k.
func Recall(ranked []string, rels map[string]int, k int) float64 {
	total := 0
	for _, r := range rels {
		if r > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if rels[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// Metrics are the means over the judged queries.
type Metrics struct {
	Queries                    int
	NDCG10, Recall10, Recall50 float64
}

// Evaluate averages nDCG@10, Recall@10 and Recall@50 over every query
// in qrels with at least one relevant id; a query missing from runs
// scores 0.
func Evaluate(runs map[string][]string, qrels Qrels) Metrics {
	var m Metrics
	for qid, rels := range qrels {
		if !hasRelevant(rels) {
			continue
		}
		ranked := runs[qid]
		m.Queries++
		m.NDCG10 += NDCG(ranked, rels, 10)
		m.Recall10 += Recall(ranked, rels, 10)
		m.Recall50 += Recall(ranked, rels, 50)
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		m.NDCG10, m.Recall10, m.Recall50 = m.NDCG10/n, m.Recall10/n, m.Recall50/n
	}
	return m
}

func hasRelevant(rels map[string]int) bool {
	for _, r := range rels {
		if r > 0 {
			return true
		}
	}
	return false
}

// Percentile returns the p-th percentile (0..100, nearest rank) of d,
// which it sorts.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// WriteRun writes one TREC run line per ranked id:
// "query_id Q0 doc_id rank score tag".
func WriteRun(w io.Writer, qid string, ids []string, scores []float64, tag string) error {
	for i, id := range ids {
		if _, err := fmt.Fprintf(w, "%s Q0 %s %d %.6f %s\n", qid, id, i+1, scores[i], tag); err != nil {
			return err
		}
	}
	return nil
}
