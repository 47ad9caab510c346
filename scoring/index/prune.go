package index

import (
	"container/heap"

	"github.com/adpnode/adpnode/scoring"
)

// queryTerm is one text term of a query with its statistics and, once
// planned, its postings and bounds.
type queryTerm struct {
	scoring.Term
	po *postings
	// ubCtx and ubEx bound what the term adds to a BM25F sum and to an
	// example's BM25 sum (termBounds).
	ubCtx, ubEx float64
}

// termBounds returns the most one term can add to the BM25F sum of a
// document and to the BM25 sum of an example: idf * saturate(tf) at the
// largest pseudo term frequency its bound allows (largest tf, shortest
// field). It never undercuts a real contribution, since both the field
// normalization and saturate grow with tf and shrink with length.
func termBounds(c *scoring.Model, qt *queryTerm, norms *scoring.NormTable, avg *[scoring.NumFields]float64, exAvg float64) (ctx, ex float64) {
	if qt.po == nil {
		return 0, 0
	}
	b := &qt.po.bound
	if qt.DF > 0 {
		tf := 0.0
		for f := range scoring.NumFields {
			if b.maxTF[f] > 0 {
				tf += float64(b.maxTF[f]) * c.Norm(norms, f, b.minLen[f], avg)
			}
		}
		ctx = qt.IDF * c.Saturate(tf)
	}
	if qt.ExDF > 0 && b.exTF > 0 {
		ex = qt.ExIDF * c.Saturate(c.ExampleTF(b.exTF, b.exLen, exAvg))
	}
	return ctx, ex
}

// restBounds sums the termBounds of the terms left.
func restBounds(qts []queryTerm) (ctx, ex float64) {
	for _, qt := range qts {
		ctx += qt.ubCtx
		ex += qt.ubEx
	}
	return ctx, ex
}

// zeroOther bounds what reputation, availability, rating and freshness
// add to the score of an agent without signals (exact but for
// freshness, bounded by 1).
func (x *Index) zeroOther(p *scoring.Plan) float64 {
	zero := scoring.Components{Reputation: x.cfg.Reputation(scoring.Signals{}), Rating: scoring.Rating(scoring.Signals{}), Freshness: 1}
	return zero.Dot(scoring.Components{Reputation: p.Weights.Reputation, Rating: p.Weights.Rating, Freshness: p.Weights.Freshness})
}

// minHeap is a min-heap of scores.
type minHeap []float64

// offer keeps v if it is among the k largest scores offered so far.
func (h *minHeap) offer(v float64, k int) {
	if len(*h) < k {
		heap.Push(h, v)
	} else if v > (*h)[0] {
		(*h)[0] = v
		heap.Fix(h, 0)
	}
}

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(v any)        { *h = append(*h, v.(float64)) }
func (h *minHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// bestExamples sets exBest for every document with a matching example.
func (x *Index) bestExamples(s *scratch, exIdfSum float64) {
	for _, e := range s.exTouched {
		d := x.exDoc[e]
		if v := x.cfg.ExampleScore(s.exAcc[e], exIdfSum); v > s.docs[d].exBest {
			s.docs[d].exBest = v
		}
	}
}

// relevance returns the candidate entry of a document that passed the
// filters, or false when it matches neither a tag nor a term.
func (x *Index) relevance(s *scratch, p *scoring.Plan, d uint32, idfSum float64) (cand, bool) {
	tagF := 0.0
	if len(p.Soft) > 0 {
		tagF = float64(s.docs[d].tagN) / float64(len(p.Soft))
	}
	ctx := x.cfg.ContextScore(s.docs[d].acc, idfSum)
	ex := s.docs[d].exBest
	sem := max(ctx, ex)
	if !p.FilterOnly && tagF == 0 && sem == 0 {
		return cand{}, false
	}
	return cand{doc: d, rel: p.Weights.Tag*tagF + p.Weights.Semantic*sem, tag: tagF, ctx: ctx, ex: ex}, true
}
