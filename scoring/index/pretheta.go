package index

import (
	"math"
	"time"

	"github.com/adpnode/adpnode/scoring"
)

// preTheta computes the final score of at most preSeedFactor times the
// result limit documents held by a tag match, and of at most
// sigSeedFactor times the limit (sigSeedMax in all) agents with signals.
const (
	preSeedFactor = 8
	sigSeedFactor = 100
	sigSeedMax    = 4096
)

// preTheta returns a lower bound of the final k-th best score before any
// text posting is read (pushed signals only), so that the postings of the
// rarest term need not all be admitted. It completes the final relevance
// (finalRelevances) of documents likely to score well: the tag matches
// with signals, a few other tag matches, the agents with signals among
// the rarest term's postings (the other factors lift them furthest) and
// the documents sharing the most of the rarest terms. A document counts
// when it passes the filters, is not overloaded, reaches the minimum
// score and is sure to stay above the final relevance floor, which is at
// most the floor times the largest relevance possible. It returns -Inf
// when fewer than limit documents qualify.
func (x *Index) preTheta(s *scratch, p *scoring.Plan, pass func(uint32) bool, t *textQuery, now time.Time) float64 {
	budget := preSeedFactor * p.Limit
	if budget <= 0 {
		return math.Inf(-1)
	}
	floor := p.Floor * (p.Weights.Tag + p.Weights.Semantic)
	nowNs := now.UnixNano()
	// try spends budget on d and keeps it, with what the factors other
	// than relevance add, when it passes the filters and is not
	// overloaded; their relevance is computed together (finalRelevances).
	done := s.done[:0]
	try := func(d uint32, budget *int) {
		*budget--
		if !pass(d) {
			return
		}
		m := &x.meta[d]
		var sig scoring.Signals
		if x.flags[d]&flagSig != 0 {
			sig = x.docSig[d]
		}
		if scoring.Overloaded(sig, m.maxConc) {
			return
		}
		other := scoring.Components{Reputation: x.cfg.Reputation(sig), Availability: x.cfg.Availability(sig, m.maxConc, m.status, now),
			Rating: scoring.Rating(sig), Freshness: scoring.Freshness(m.indexed, m.expires, nowNs)}.Dot(
			scoring.Components{Reputation: p.Weights.Reputation, Availability: p.Weights.Availability, Rating: p.Weights.Rating, Freshness: p.Weights.Freshness})
		done = append(done, seedDoc{doc: d, other: other})
	}
	// The tag matches: agents with signals first (the other factors can
	// lift them furthest), then a few others.
	sigBudget := min(sigSeedFactor*p.Limit, sigSeedMax)
	for _, d := range s.touched {
		if sigBudget <= 0 {
			break
		}
		if x.flags[d]&flagSig != 0 {
			try(d, &sigBudget)
		}
	}
	for _, d := range s.touched {
		if budget <= 0 {
			break
		}
		if x.flags[d]&flagSig == 0 {
			try(d, &budget)
		}
	}
	// The rarest term with postings.
	var po *postings
	for i := range t.qts {
		if t.qts[i].DF > 0 {
			po = t.qts[i].po
			break
		}
	}
	if po != nil {
		// Agents with signals among the rarest term's postings.
		budget = sigBudget
		tried := make(map[uint32]bool, budget+intersectSeeds)
		for _, d := range po.docs {
			if budget <= 0 {
				break
			}
			if x.flags[d]&(flagSig|flagAlive) == flagSig|flagAlive && !s.held(d) {
				tried[d] = true
				try(d, &budget)
			}
		}
		// The documents that most of the rarest terms share, in the
		// context fields or in one example: the likely best matches.
		budget = intersectSeeds
		for _, d := range x.sharedDocs(s, t) {
			if budget <= 0 {
				break
			}
			if !tried[d] && !s.held(d) && x.flags[d]&flagAlive != 0 {
				tried[d] = true
				try(d, &budget)
			}
		}
	}
	x.finalRelevances(s, p, t, done)
	s.done = done
	top := make(minHeap, 0, p.Limit+1)
	for _, sd := range done {
		if sd.rel <= 0 || sd.rel < floor {
			continue
		}
		v := sd.rel + sd.other
		if v < p.MinScore {
			continue
		}
		top.offer(v, p.Limit)
	}
	return kth(top, p.Limit)
}

// intersectSeeds bounds the documents sharedDocs offers preTheta.
const intersectSeeds = 256

// sharedDocs returns documents whose context fields hold several of the
// rarest query terms, then documents with an example that does: the
// postings of the rarest term with postings are intersected with those of
// the next ones while more than intersectSeeds documents remain (and
// while the intersection keeps at least one). The lists are built in the
// scratch.
func (x *Index) sharedDocs(s *scratch, t *textQuery) []uint32 {
	var withDocs, withEx []*postings
	for i := range t.qts {
		if po := t.qts[i].po; po != nil {
			if len(po.docs) > 0 {
				withDocs = append(withDocs, po)
			}
			if len(po.ex) > 0 {
				withEx = append(withEx, po)
			}
		}
	}
	out := s.shared[:0]
	if len(withDocs) > 0 {
		out = narrow(out, withDocs, func(po *postings) []uint32 { return po.docs })
	}
	if len(withEx) > 0 {
		n := len(out)
		out = narrow(out, withEx, func(po *postings) []uint32 { return po.ex })
		for i := n; i < len(out); i++ {
			out[i] = x.exDoc[out[i]]
		}
	}
	s.shared = out
	return out
}

// narrow appends to out the intersection of the first lists (rarest
// first) that is the smallest still non-empty, stopping once it holds at
// most intersectSeeds values.
func narrow(out []uint32, lists []*postings, of func(*postings) []uint32) []uint32 {
	base := len(out)
	out = append(out, of(lists[0])...)
	for _, po := range lists[1:] {
		if len(out)-base <= intersectSeeds {
			break
		}
		next := of(po)
		k, j := base, 0
		for _, v := range out[base:] {
			if j = gallop(next, j, v); j == len(next) {
				break
			}
			if next[j] == v {
				out[k] = v
				k++
			}
		}
		if k == base {
			break // none share this term too: keep the wider set
		}
		out = out[:k]
	}
	return out
}

// kth returns the smallest of the k best scores in top (a bound, so just
// below it), or -Inf when there are fewer.
func kth(top minHeap, k int) float64 {
	if len(top) < k {
		return math.Inf(-1)
	}
	return top[0] - 1e-9
}
