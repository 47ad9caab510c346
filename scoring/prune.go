package scoring

import (
	"container/heap"
	"math"
	"sort"
	"time"
)

// queryTerm is one text term of a query with its statistics.
type queryTerm struct {
	term       string
	po         *postings
	df, exdf   int
	idf, exIdf float64
	// ubCtx and ubEx bound what the term adds to a BM25F sum and to an
	// example's BM25 sum (termBounds).
	ubCtx, ubEx float64
}

// sortTerms orders terms rarest first (highest idf, then by term) and
// returns the sums of their idf and example idf. Index and Naive add up
// contributions in this order, so their sums agree to the last bit.
func sortTerms(qts []queryTerm) (idfSum, exIdfSum float64) {
	sort.Slice(qts, func(i, j int) bool {
		if qts[i].idf != qts[j].idf {
			return qts[i].idf > qts[j].idf
		}
		return qts[i].term < qts[j].term
	})
	for _, qt := range qts {
		idfSum += qt.idf
		exIdfSum += qt.exIdf
	}
	return idfSum, exIdfSum
}

// maxThetaTries bounds how often one search computes theta (each costs a
// pass over the documents held): after each of the first terms that
// leave more postings to read than documents held.
const maxThetaTries = 2

// restBounds sums the termBounds of the terms left.
func restBounds(qts []queryTerm) (ctx, ex float64) {
	for _, qt := range qts {
		ctx += qt.ubCtx
		ex += qt.ubEx
	}
	return ctx, ex
}

// restPostings counts the postings of the terms left: the work that
// closing the candidate set can save.
func restPostings(qts []queryTerm) int {
	n := 0
	for _, qt := range qts {
		n += qt.df + qt.exdf
	}
	return n
}

// zeroOther bounds what reputation, availability, rating and freshness
// add to the score of an agent without signals (exact but for
// freshness, bounded by 1).
func (x *Index) zeroOther(p *prepared) float64 {
	zero := Components{Reputation: x.cfg.reputation(Signals{}), Rating: rating(Signals{}), Freshness: 1}
	return zero.Dot(Components{Reputation: p.w.Reputation, Rating: p.w.Rating, Freshness: p.w.Freshness})
}

// theta returns a lower bound of the final k-th best score from the
// documents touched so far (pushed signals only): their partial relevance
// (which only grows; final for the seeds, see seed) plus what the other factors add (exact with pushed
// signals or none), counting only documents sure to stay above the final
// relevance floor, whatever the remaining terms (which add at most
// ubRest) do. It returns -Inf when fewer than k documents qualify.
func (x *Index) theta(s *scratch, p *prepared, pass func(uint32) bool, t *textQuery, next int, zeroOther, ubRest float64, now time.Time) float64 {
	idfSum := t.idfSum
	x.bestExamples(s, t.exIdfSum)
	best := ubRest // bounds the final best relevance of an untouched document
	rels := s.rels[:0]
	for _, d := range s.touched {
		c, ok := x.relevance(s, p, d, idfSum)
		if !ok {
			c.rel = math.Inf(-1)
		}
		rels = append(rels, c.rel)
		best = max(best, c.rel+ubRest)
	}
	s.rels = rels
	// Final relevance is at most partial relevance plus ubRest, so best
	// still bounds the final best relevance after seeding.
	x.seed(s, p, t, next, rels)
	floor := x.cfg.floor * min(best, p.w.Tag+p.w.Semantic)
	top := make(minHeap, 0, p.limit+1)
	nowNs := now.UnixNano()
	for i, d := range s.touched {
		rel := rels[i]
		if rel < floor || math.IsInf(rel, -1) || (len(top) == p.limit && rel+p.other <= top[0]) {
			continue
		}
		m := &x.meta[d]
		v := rel
		if x.flags[d]&flagSig != 0 {
			sig := x.sig[x.ids[d]]
			if overloaded(sig, m.maxConc) {
				continue
			}
			v += Components{Reputation: x.cfg.reputation(sig), Availability: x.cfg.availability(sig, m.maxConc, m.status, now),
				Rating: rating(sig), Freshness: freshness(m.indexed, m.expires, nowNs)}.Dot(
				Components{Reputation: p.w.Reputation, Availability: p.w.Availability, Rating: p.w.Rating, Freshness: p.w.Freshness})
		} else {
			v += zeroOther - p.w.Freshness*(1-freshness(m.indexed, m.expires, nowNs))
		}
		if v < p.minScore || !pass(d) {
			continue
		}
		if len(top) < p.limit {
			heap.Push(&top, v)
		} else if v > top[0] {
			top[0] = v
			heap.Fix(&top, 0)
		}
	}
	if len(top) < p.limit {
		return math.Inf(-1)
	}
	return top[0] - 1e-9
}

// minHeap is a min-heap of scores.
type minHeap []float64

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
		if v := x.cfg.exampleScore(s.exAcc[e], exIdfSum); v > s.docs[d].exBest {
			s.docs[d].exBest = v
		}
	}
}

// relevance returns the candidate entry of a document that passed the
// filters, or false when it matches neither a tag nor a term.
func (x *Index) relevance(s *scratch, p *prepared, d uint32, idfSum float64) (cand, bool) {
	tagF := 0.0
	if len(p.soft) > 0 {
		tagF = float64(s.docs[d].tagN) / float64(len(p.soft))
	}
	ctx := x.cfg.contextScore(s.docs[d].acc, idfSum)
	ex := s.docs[d].exBest
	sem := max(ctx, ex)
	if !p.filterOnly && tagF == 0 && sem == 0 {
		return cand{}, false
	}
	return cand{doc: d, rel: p.w.Tag*tagF + p.w.Semantic*sem, tag: tagF, ctx: ctx, ex: ex}, true
}
