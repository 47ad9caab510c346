package index

import (
	"math"
	"slices"
	"time"

	"github.com/adpnode/adpnode/scoring"
)

// preTheta computes the final score of at most preSeedFactor times the
// result limit documents held by a tag match without signals, and of at
// most sigSeedFactor times the limit (sigSeedMax in all) with signals.
const (
	preSeedFactor = 8
	sigSeedFactor = 100
	sigSeedMax    = 4096
)

// preTheta returns a lower bound of the final k-th best score before any
// text posting is read (pushed signals only), so that the postings of the
// rarest term need not all be admitted, and reports whether it completed
// the agents with signals (completeSignals). It first computes the final
// relevance (finalRelevances) of some tag matches, agents with signals
// first (the other factors lift them furthest), and of the documents
// sharing the most of the rarest terms, the likely best matches. When
// that bound already keeps every document not held out (a document only
// the terms reach scores at most ubNew), it stops there; otherwise it
// completes every agent with signals that a tag or a term reaches (they
// are few) and counts them all, listing them in s.sigs. A document counts
// when it passes the filters, is not overloaded, reaches the minimum
// score and is sure to stay above the final relevance floor, which is at
// most the floor times the largest relevance possible. The bound is -Inf
// when fewer than limit documents qualify.
func (x *Index) preTheta(s *scratch, p *scoring.Plan, pass func(uint32) bool, t *textQuery, now time.Time, ubNew float64) (float64, bool) {
	s.sigs = s.sigs[:0]
	budget := preSeedFactor * p.Limit
	if budget <= 0 {
		return math.Inf(-1), false
	}
	floor := p.Floor * (p.Weights.Tag + p.Weights.Semantic)
	nowNs := now.UnixNano()
	top := make(minHeap, 0, p.Limit+1)
	// other returns what the factors other than relevance add to d, or
	// false when d fails the filters or is overloaded.
	other := func(d uint32) (float64, bool) {
		if !pass(d) {
			return 0, false
		}
		v, overloaded := x.otherFactors(p, d, now, nowNs)
		return v, !overloaded
	}
	offer := func(rel, other float64) {
		if rel <= 0 || rel < floor || rel+other < p.MinScore {
			return
		}
		top.offer(rel+other, p.Limit)
	}
	// try spends budget on d and keeps it, with what the factors other
	// than relevance add, when it passes the filters and is not
	// overloaded, marked seeded; their relevance is computed together
	// (finalRelevances).
	done := s.done[:0]
	try := func(d uint32, budget *int) {
		*budget--
		if o, ok := other(d); ok {
			s.docs[d].seeded = true
			done = append(done, seedDoc{doc: d, other: o})
		}
	}
	// The tag matches: agents with signals first, then a few others.
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
	// The documents that most of the rarest terms share, in the context
	// fields or in one example; a document may be listed more than once.
	if slices.ContainsFunc(t.qts, func(qt queryTerm) bool { return qt.DF > 0 }) {
		budget = intersectSeeds
		for _, d := range x.sharedDocs(s, t) {
			if budget <= 0 {
				break
			}
			if x.flags[d]&flagAlive != 0 && !s.held(d) && !s.docs[d].seeded {
				try(d, &budget)
			}
		}
	}
	x.finalRelevances(s, p, t, done)
	s.done = done
	for _, sd := range done {
		offer(sd.rel, sd.other)
	}
	complete := len(top) < p.Limit || ubNew >= top[0]
	if complete {
		// The agents with signals, complete, each counted once.
		x.completeSignals(s, t)
		sigs := s.sigs[:0]
		for _, d := range s.touched {
			if x.flags[d]&flagSig == 0 {
				continue
			}
			c, ok := x.relevance(s, p, d, t.idfSum)
			if !ok {
				continue
			}
			sigs = append(sigs, sigDoc{doc: d, rel: c.rel, acc: s.docs[d].acc})
			if s.docs[d].seeded || (len(top) == p.Limit && c.rel+p.Other <= top[0]) {
				continue
			}
			if o, ok := other(d); ok {
				offer(c.rel, o)
			}
		}
		s.sigs = sigs
	}
	for _, sd := range done {
		s.docs[sd.doc].seeded = false
	}
	return kth(top, p.Limit), complete
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
	cur, owned := of(lists[0]), false // owned: cur is out[base:]
	for _, po := range lists[1:] {
		if len(cur) <= intersectSeeds {
			break
		}
		// In place when cur is out[base:]: a value is written at or
		// before the place it was read from.
		res := intersect(out[:base], cur, of(po))
		if len(res) == base {
			break // none share this term too: keep the wider set
		}
		out, cur, owned = res, res[base:], true
	}
	if !owned {
		out = append(out[:base], cur...)
	}
	return out
}

// intersect appends to out the values of the ascending lists a and b that
// both hold: by merging them, or by galloping through b when it is much
// the longer.
func intersect(out, a, b []uint32) []uint32 {
	if len(b) > 8*len(a) {
		j := 0
		for _, v := range a {
			if j = gallop(b, j, v); j == len(b) {
				break
			}
			if b[j] == v {
				out = append(out, v)
			}
		}
		return out
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch u, v := a[i], b[j]; {
		case u == v:
			out = append(out, u)
			i++
			j++
		case u < v:
			i++
		default:
			j++
		}
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

// completeSignals reads the postings of every query term for the live
// agents with signals alone, term at a time in processing order with the
// arithmetic of addDoc and addExample, so the sums are the numbers the
// search would add up, and sets their best example score. Afterwards
// every agent with signals that a tag or a term reaches is held with its
// final sums, and the search reads no more postings for them.
func (x *Index) completeSignals(s *scratch, t *textQuery) {
	ex0 := len(s.exTouched)
	for i := range t.qts {
		qt := &t.qts[i]
		po := qt.po
		if po == nil {
			continue
		}
		if qt.IDF != 0 {
			for k, d := range po.docs {
				if x.flags[d]&(flagSig|flagAlive) != flagSig|flagAlive {
					continue
				}
				tf := x.cfg.PseudoTF(po.tfs[k], x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields], t.avg, t.norms)
				if tf == 0 {
					continue
				}
				s.touch(d)
				s.docs[d].acc += qt.IDF * x.cfg.Saturate(tf)
			}
		}
		if qt.ExIDF != 0 {
			for k, e := range po.ex {
				d := po.exDocs[k]
				if x.flags[d]&(flagSig|flagAlive) != flagSig|flagAlive {
					continue
				}
				if s.exAcc[e] == 0 {
					s.exTouched = append(s.exTouched, e)
					s.touch(d)
				}
				s.exAcc[e] += qt.ExIDF * x.cfg.Saturate(x.cfg.ExampleTF(po.extf[k], x.exLen[e], t.exAvg))
			}
		}
	}
	for _, e := range s.exTouched[ex0:] {
		d := x.exDoc[e]
		if v := x.cfg.ExampleScore(s.exAcc[e], t.exIdfSum); v > s.docs[d].exBest {
			s.docs[d].exBest = v
		}
	}
}

// otherFactors returns what reputation, availability, rating and
// freshness add to the score of document d with its pushed signals (none
// for an agent without), and whether the agent is overloaded.
func (x *Index) otherFactors(p *scoring.Plan, d uint32, now time.Time, nowNs int64) (float64, bool) {
	m := &x.meta[d]
	var sig scoring.Signals
	if x.flags[d]&flagSig != 0 {
		sig = x.docSig[d]
	}
	if scoring.Overloaded(sig, m.maxConc) {
		return 0, true
	}
	return scoring.Components{Reputation: x.cfg.Reputation(sig), Availability: x.cfg.Availability(sig, m.maxConc, m.status, now),
		Rating: scoring.Rating(sig), Freshness: scoring.Freshness(m.indexed, m.expires, nowNs)}.Dot(
		scoring.Components{Reputation: p.Weights.Reputation, Availability: p.Weights.Availability, Rating: p.Weights.Rating, Freshness: p.Weights.Freshness}), false
}
