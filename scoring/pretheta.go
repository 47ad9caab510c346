package scoring

import (
	"container/heap"
	"math"
	"time"
)

// preSeedFactor times the result limit is the number of documents whose
// final score preTheta computes.
const preSeedFactor = 8

// preTheta returns a lower bound of the final k-th best score before any
// text posting is read (pushed signals only), so that the postings of the
// rarest term need not all be admitted. It completes the final relevance
// (finalRelevance) of a few documents likely to score well: those held
// by a tag match and the agents with signals among the rarest term's
// postings. A document counts when it passes the filters, is not
// overloaded, reaches the minimum score and is sure to stay above the
// final relevance floor, which is at most the floor times the largest
// relevance possible. It returns -Inf when fewer than limit documents
// qualify.
func (x *Index) preTheta(s *scratch, p *prepared, pass func(uint32) bool, t *textQuery, now time.Time) float64 {
	budget := preSeedFactor * p.limit
	if budget <= 0 {
		return math.Inf(-1)
	}
	floor := x.cfg.floor * (p.w.Tag + p.w.Semantic)
	nowNs := now.UnixNano()
	top := make(minHeap, 0, p.limit+1)
	try := func(d uint32) {
		budget--
		if !pass(d) {
			return
		}
		m := &x.meta[d]
		var sig Signals
		if x.flags[d]&flagSig != 0 {
			sig = x.sig[x.ids[d]]
		}
		if overloaded(sig, m.maxConc) {
			return
		}
		rel := x.finalRelevance(s, p, d, t)
		if rel <= 0 || rel < floor {
			return
		}
		v := rel + Components{Reputation: x.cfg.reputation(sig), Availability: x.cfg.availability(sig, m.maxConc, m.status, now),
			Rating: rating(sig), Freshness: freshness(m.indexed, m.expires, nowNs)}.Dot(
			Components{Reputation: p.w.Reputation, Availability: p.w.Availability, Rating: p.w.Rating, Freshness: p.w.Freshness})
		if v < p.minScore {
			return
		}
		if len(top) < p.limit {
			heap.Push(&top, v)
		} else if v > top[0] {
			top[0] = v
			heap.Fix(&top, 0)
		}
	}
	for _, d := range s.touched {
		if budget <= 0 {
			break
		}
		try(d)
	}
	if po := t.qts[0].po; po != nil {
		for _, d := range po.docs {
			if budget <= 0 {
				break
			}
			if x.flags[d]&(flagSig|flagAlive) == flagSig|flagAlive && !s.held(d) {
				try(d)
			}
		}
	}
	if len(top) < p.limit {
		return math.Inf(-1)
	}
	return top[0] - 1e-9
}
