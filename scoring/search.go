package scoring

import (
	"container/heap"
	"math"
	"sort"
	"time"
)

// Search ranks the live documents for q at time now. With a nil signals
// function it uses the signals given to SetSignals (agents without any
// have zero signals); otherwise it calls signals for every candidate it
// scores, which is slower and prunes less.
//
// Processing follows discovery profile §7.2. Candidates come from the
// postings of the query's tags and terms, never from a scan (except for a
// query with neither). Terms are processed rarest first; once the
// remaining terms cannot lift a document they alone reach to the relevance
// floor of the best relevance so far, the index stops admitting new
// documents and only completes the scores of the ones it has (max-score
// pruning). The
// relevance part (tag and semantic factors) of every admitted candidate
// is then exact; candidates are bucketed by it and fully scored from the
// most relevant bucket down, stopping once no remaining candidate can
// beat the k-th best score even with perfect reputation, availability,
// rating and freshness. Signals are looked up only for the candidates
// scored.
func (x *Index) Search(q Query, signals SignalFunc, now time.Time) Result {
	p := x.cfg.prepare(q)
	res := Result{Weights: p.w, Warnings: p.warnings}
	x.mu.RLock()
	defer x.mu.RUnlock()
	required := x.canonNums(p.required)
	excluded := x.canonNums(p.excluded)
	if len(required) < len(p.required) {
		return res // a required tag that no document declares
	}
	s := x.getScratch()
	defer x.putScratch(s)
	protoMask, protoOther := x.protoMask(p.protocols)
	nowNs := now.UnixNano()
	pass := func(d uint32) bool {
		m := &x.meta[d]
		return m.alive && x.pass(d, m, p, required, excluded, protoMask, protoOther, nowNs)
	}

	// 1. Tags: count matched query tags per document.
	for _, qt := range p.soft {
		cn, ok := x.canonIDs[qt.canon]
		if !ok {
			continue
		}
		for _, d := range x.canons[cn].docs {
			if x.meta[d].alive {
				s.touch(d)
				s.docs[d].tagN++
			}
		}
	}
	if p.filterOnly {
		for d := range x.meta {
			if x.meta[d].alive {
				s.touch(uint32(d))
			}
		}
	}
	// lb is a lower bound of the best relevance among the documents that
	// pass the filters: it only grows as terms are added.
	lb := 0.0
	if len(p.soft) > 0 && len(p.terms) > 0 && x.cfg.floor > 0 {
		for _, d := range s.touched {
			if v := p.w.Tag * float64(s.docs[d].tagN) / float64(len(p.soft)); v > lb && pass(d) {
				lb = v
			}
		}
	}

	// 2. Text: BM25F over the context fields and BM25 per example, term
	// at a time, rarest term first.
	n := x.live
	var avg [numFields]float64
	for f := range numFields {
		if n > 0 {
			avg[f] = float64(x.sumLen[f]) / float64(n)
		}
	}
	exAvg := 0.0
	if x.exLive > 0 {
		exAvg = float64(x.exSumLen) / float64(x.exLive)
	}
	norms := x.cfg.norms(&avg)
	qts := make([]queryTerm, len(p.terms))
	for i, t := range p.terms {
		qt := queryTerm{term: t}
		if tn, ok := x.terms[t]; ok {
			qt.po = &x.post[tn]
			qt.df, qt.exdf = len(qt.po.docs), len(qt.po.ex)
		}
		qt.idf, qt.exIdf = idf(n, qt.df), idf(x.exLive, qt.exdf)
		qts[i] = qt
	}
	idfSum, exIdfSum := sortTerms(qts)
	// restIdf and restExIdf sum the idf of the terms not processed yet
	// that have postings: only those can still add to a score.
	restIdf, restExIdf := 0.0, 0.0
	for _, qt := range qts {
		if qt.df > 0 {
			restIdf += qt.idf
		}
		if qt.exdf > 0 {
			restExIdf += qt.exIdf
		}
	}
	// closed: admit no new documents; closedPlain: admit only agents
	// with signals (the others' scores are bounded exactly).
	closed, closedPlain := false, false
	zeroOther := x.zeroOther(p)
	thetaTries := 0
	if signals != nil { // pulled signals: nothing is known before scoring
		zeroOther, thetaTries = p.other, 3
	}
	bestAcc := 0.0 // the largest context sum of a document that passes the filters
	for j := range qts {
		qt := &qts[j]
		if !closed && !p.filterOnly {
			ub := p.w.Semantic*x.cfg.semanticBound(restIdf, idfSum, restExIdf, exIdfSum) + 1e-9
			if x.cfg.floor > 0 {
				// A document only the remaining terms reach stays below
				// the relevance floor.
				lb = max(lb, p.w.Semantic*x.cfg.contextScore(bestAcc, idfSum))
				closed = ub < x.cfg.floor*lb
			}
			closed = closed || ub+p.other < p.minScore
			closedPlain = closed || closedPlain || ub+zeroOther < p.minScore
			if !closedPlain && j > 0 && thetaTries < 2 && restPostings(qts[j:]) > len(s.touched) {
				// Or it cannot reach the k-th best score so far.
				thetaTries++
				theta := x.theta(s, p, pass, idfSum, exIdfSum, zeroOther, ub, now)
				closed = ub+p.other < theta
				closedPlain = closed || ub+zeroOther < theta
			}
		}
		if qt.df > 0 {
			restIdf -= qt.idf
		}
		if qt.exdf > 0 {
			restExIdf -= qt.exIdf
		}
		po := qt.po
		if po == nil {
			continue
		}
		for i, d := range po.docs {
			if closedPlain && !s.docs[d].mark && (closed || x.flags[d]&flagSig == 0) {
				res.Skipped++
				continue
			}
			if x.flags[d]&flagAlive == 0 {
				continue
			}
			tf := x.cfg.pseudoTF(po.tfs[i], x.lens[int(d)*numFields:int(d+1)*numFields], &avg, norms)
			if tf == 0 {
				continue
			}
			s.touch(d)
			ds := &s.docs[d]
			ds.acc += qt.idf * x.cfg.saturate(tf)
			if ds.acc > bestAcc && pass(d) {
				bestAcc = ds.acc
			}
		}
		for i, e := range po.ex {
			d := x.exDoc[e]
			if (closedPlain && !s.docs[d].mark && (closed || x.flags[d]&flagSig == 0)) || x.flags[d]&flagAlive == 0 {
				continue
			}
			if s.exAcc[e] == 0 {
				s.exTouched = append(s.exTouched, e)
				s.touch(d)
			}
			s.exAcc[e] += qt.exIdf * x.cfg.saturate(x.cfg.exampleTF(po.extf[i], x.exLen[e], exAvg))
		}
	}
	x.bestExamples(s, exIdfSum)

	// 3. The relevance part of the score, bucketed by an upper bound of
	// the whole score: relevance plus the most the other factors can add.
	// For an agent without signals they are known exactly (zero signals),
	// so only agents with signals carry the full bound. The hard filters
	// are checked lazily, only for the documents examined below.
	pull := signals != nil
	lb = max(lb, p.w.Semantic*x.cfg.contextScore(bestAcc, idfSum))
	floorLB := x.cfg.floor * lb // below it a document is below the final floor too
	accMin := 0.0               // a document with only a context sum below it is below floorLB
	if p.w.Semantic > 0 {
		accMin = floorLB * idfSum * x.cfg.saturate(contextRefTF) / p.w.Semantic * (1 - 1e-9)
	}
	for _, d := range s.touched {
		if ds := &s.docs[d]; ds.acc < accMin && ds.tagN == 0 && ds.exBest == 0 {
			continue
		}
		if c, ok := x.relevance(s, p, d, idfSum); ok && c.rel >= floorLB {
			if pull || x.flags[d]&flagSig != 0 {
				c.bound = c.rel + p.other
			} else {
				c.bound = c.rel + zeroOther
			}
			s.cands = append(s.cands, c)
		}
	}
	s.bucketSort()
	// The relevance floor is relative to the best relevance among the
	// documents that pass the filters (relevance <= bound < bucket top).
	floor := 0.0
	if x.cfg.floor > 0 {
		best := -1.0
		for b := nBuckets - 1; b >= 0 && float64(b+1)/nBuckets > best; b-- {
			for _, ci := range s.order[s.starts[b]:s.starts[b+1]] {
				if c := &s.cands[ci]; c.rel > best && pass(c.doc) {
					best = c.rel
				}
			}
		}
		floor = x.cfg.floor * max(best, 0)
	}

	// 4. Exact scoring, highest bound first, stopping once the bound of
	// the next bucket cannot beat the k-th best score (max-score).
	h := &hitHeap{}
	for b := nBuckets - 1; b >= 0; b-- {
		lo, hi := s.starts[b], s.starts[b+1]
		if lo == hi {
			continue
		}
		ub := float64(b+1)/nBuckets + 1e-9
		if ub < p.minScore || (h.Len() == p.limit && (*h)[0].Score > ub) {
			break
		}
		for _, ci := range s.order[lo:hi] {
			c := &s.cands[ci]
			if c.rel < floor || !pass(c.doc) {
				continue
			}
			res.Candidates++
			m := &x.meta[c.doc]
			id := x.ids[c.doc]
			var sig Signals
			switch {
			case pull:
				sig = signals(id)
			case m.hasSig:
				sig = x.sig[id]
			}
			if overloaded(sig, m.maxConc) {
				continue
			}
			res.Scored++
			comp := Components{
				Tag: c.tag, Context: c.ctx, Example: c.ex,
				Reputation:   x.cfg.reputation(sig),
				Availability: x.cfg.availability(sig, m.maxConc, m.status, now),
				Rating:       rating(sig),
				Freshness:    freshness(m.indexed, m.expires, nowNs),
			}
			hw := hitWeights(p.w, c.ctx, c.ex)
			score := comp.Dot(hw)
			if score < p.minScore {
				continue
			}
			if h.Len() == p.limit && !better(score, id, (*h)[0].Score, (*h)[0].ID) {
				continue
			}
			hit := Hit{ID: id, Score: score, Components: comp, Weights: hw,
				Stale: m.expires != 0 && nowNs >= m.expires}
			hit.Examples = x.exampleMatches(s, m, exIdfSum)
			if h.Len() < p.limit {
				heap.Push(h, hit)
			} else {
				(*h)[0] = hit
				heap.Fix(h, 0)
			}
		}
	}
	res.Hits = make([]Hit, h.Len())
	for i := len(res.Hits) - 1; i >= 0; i-- {
		res.Hits[i] = heap.Pop(h).(Hit)
	}
	for i := range res.Hits {
		hit := &res.Hits[i]
		hit.MatchedTags, hit.ExpandedTags = tagEvidence(p.soft, x.docTags(x.byID[hit.ID]))
	}
	return res
}

// queryTerm is one text term of a query with its statistics.
type queryTerm struct {
	term       string
	po         *postings
	df, exdf   int
	idf, exIdf float64
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
// (which only grows) plus what the other factors add (exact with pushed
// signals or none), counting only documents sure to stay above the final
// relevance floor, whatever the remaining terms (which add at most
// ubRest) do. It returns -Inf when fewer than k documents qualify.
func (x *Index) theta(s *scratch, p *prepared, pass func(uint32) bool, idfSum, exIdfSum, zeroOther, ubRest float64, now time.Time) float64 {
	x.bestExamples(s, exIdfSum)
	best := ubRest // bounds the final best relevance of an untouched document
	for _, d := range s.touched {
		if c, ok := x.relevance(s, p, d, idfSum); ok {
			best = max(best, c.rel+ubRest)
		}
	}
	floor := x.cfg.floor * min(best, p.w.Tag+p.w.Semantic)
	top := make(minHeap, 0, p.limit+1)
	nowNs := now.UnixNano()
	for _, d := range s.touched {
		c, ok := x.relevance(s, p, d, idfSum)
		if !ok || c.rel < floor || (len(top) == p.limit && c.rel+p.other <= top[0]) {
			continue
		}
		m := &x.meta[d]
		v := c.rel
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

// pass applies the hard filters that need no signals.
func (x *Index) pass(d uint32, m *docMeta, p *prepared, required, excluded []uint32, mask uint64, other []string, now int64) bool {
	if m.expires != 0 && now >= m.expires && !p.allowStale {
		return false
	}
	if p.maxAge > 0 {
		at := m.indexed
		if at == 0 {
			at = m.updated
		}
		if at == 0 || now-at > int64(p.maxAge) {
			return false
		}
	}
	if len(p.protocols) > 0 && m.protos&mask == 0 {
		if m.protos&(1<<overflowProto) == 0 || !anyIn(x.protoOut[d], other) {
			return false
		}
	}
	if len(required) == 0 && len(excluded) == 0 {
		return true
	}
	tags := x.dtags[d]
	for _, r := range required {
		if !x.hasTag(tags, r) {
			return false
		}
	}
	for _, e := range excluded {
		if x.hasTag(tags, e) {
			return false
		}
	}
	return true
}

// hasTag reports whether one of the raw tags is cn or lies below it.
func (x *Index) hasTag(tags []uint32, cn uint32) bool {
	for _, rn := range tags {
		for _, a := range x.canons[x.rawInfo[rn].canon].anc {
			if a == cn {
				return true
			}
		}
	}
	return false
}

func (x *Index) canonNums(tags []string) []uint32 {
	var out []uint32
	for _, t := range tags {
		if cn, ok := x.canonIDs[t]; ok {
			out = append(out, cn)
		}
	}
	return out
}

// protoMask returns the bits of the requested protocols that have one and
// the requested protocols that have none.
func (x *Index) protoMask(protos []string) (uint64, []string) {
	var mask uint64
	var other []string
	for _, p := range protos {
		if bit, ok := x.protos[p]; ok {
			mask |= 1 << bit
		} else {
			other = append(other, p)
		}
	}
	return mask, other
}

func anyIn(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

func (x *Index) docTags(d uint32) []docTag {
	out := make([]docTag, 0, len(x.dtags[d]))
	for _, rn := range x.dtags[d] {
		ri := x.rawInfo[rn]
		out = append(out, docTag{raw: ri.raw, canon: x.canons[ri.canon].tag})
	}
	return out
}

func (x *Index) exampleMatches(s *scratch, m *docMeta, exIdfSum float64) []ExampleMatch {
	var out []ExampleMatch
	for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
		if v := s.exAcc[e]; v > 0 {
			out = append(out, ExampleMatch{Index: int(e - m.exStart), Score: x.cfg.exampleScore(v, exIdfSum)})
		}
	}
	sortExamples(out)
	return out
}

func sortExamples(ex []ExampleMatch) []ExampleMatch {
	sort.Slice(ex, func(i, j int) bool {
		if ex[i].Score != ex[j].Score {
			return ex[i].Score > ex[j].Score
		}
		return ex[i].Index < ex[j].Index
	})
	if len(ex) > MaxMatchedExamples {
		ex = ex[:MaxMatchedExamples]
	}
	return ex
}

// hitHeap is a min-heap of hits: the root is the worst kept hit.
type hitHeap []Hit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	return h.worse(h[i].Score, h[i].ID, h[j].Score, h[j].ID)
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(v any)   { *h = append(*h, v.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// worse reports whether (as, aid) ranks below (bs, bid).
func (hitHeap) worse(as float64, aid string, bs float64, bid string) bool {
	return better(bs, bid, as, aid)
}
