package scoring

import (
	"container/heap"
	"math"
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
// floor of the best relevance so far, or (for agents without signals) to
// the k-th best score so far, the index stops admitting such documents
// and only completes the scores of the ones it has (max-score pruning).
// The same test runs per block of documents with the bound of the block
// (block-max, blocks.go), and once no document may enter, a term much
// longer than the held set is read by looking the held documents up
// (lookup.go). A first k-th score bound comes from documents completed
// before any term is read (preTheta): the tag matches, the agents with
// signals and the documents sharing the rarest terms.
// The relevance part (tag and semantic factors) of every admitted
// candidate is then exact; candidates are bucketed by an upper bound of
// their score (exact for agents without signals) and fully scored from
// the best bucket down, stopping once no remaining candidate can beat the
// k-th best score. Signals are looked up only for the candidates scored.
func (x *Index) Search(q Query, signals SignalFunc, now time.Time) Result {
	res, ok := x.search(q, signals, now, true)
	if !ok {
		res, _ = x.search(q, signals, now, false)
	}
	return res
}

// search is Search. With dropTags it releases the tag matches that cannot
// reach the k-th best score before reading the terms (dropTagDocs); their
// relevance is then only bounded, so the relevance floor may come out
// lower than it is, and search reports false when a hit is below the
// floor that bound would allow: the caller searches again without.
func (x *Index) search(q Query, signals SignalFunc, now time.Time, dropTags bool) (Result, bool) {
	p := x.cfg.prepare(q)
	res := Result{Weights: p.w, Warnings: p.warnings}
	x.mu.RLock()
	defer x.mu.RUnlock()
	required := x.canonNums(p.required)
	excluded := x.canonNums(p.excluded)
	if len(required) < len(p.required) {
		return res, true // a required tag that no document declares
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
	avg, exAvg := lengthStats(&x.sumLen, n, x.exSumLen, x.exLive)
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
	for i := range qts {
		qts[i].ubCtx, qts[i].ubEx = x.cfg.termBounds(&qts[i], &avg, exAvg)
	}
	tq := textQuery{qts: qts, idfSum: idfSum, exIdfSum: exIdfSum, avg: &avg, norms: norms, exAvg: exAvg}
	// closed: admit no new documents; closedPlain: admit only agents
	// with signals (the others' scores are bounded exactly).
	closed, closedPlain := false, false
	zeroOther := x.zeroOther(p)
	// Per block, the same tests with the bound of the block (blocks.go).
	var bq *blockQuery
	if !p.filterOnly && len(qts) > 0 {
		bq = x.initBlocks(s, &tq)
	}
	thetaTries := 0
	theta := math.Inf(-1) // a lower bound of the final k-th best score
	if signals != nil {   // pulled signals: nothing is known before scoring
		zeroOther, thetaTries = p.other, maxThetaTries
	} else if !p.filterOnly && len(qts) > 0 {
		theta = x.preTheta(s, p, pass, &tq, now)
	}
	droppedUB := math.Inf(-1) // bounds the relevance of the tag matches dropped
	if dropTags && bq != nil && len(p.soft) > 0 && !math.IsInf(theta, -1) {
		held := len(s.touched)
		droppedUB = x.dropTagDocs(s, p, bq, &tq, theta, zeroOther)
		res.Released = held - len(s.touched)
	}
	bestAcc := 0.0 // the largest context sum of a document that passes the filters
	for j := range qts {
		qt := &qts[j]
		if j > 0 {
			x.dropBlocks(bq, &qts[j-1], &tq)
		}
		if !closed && !p.filterOnly {
			// Only the terms not processed yet can still add to a score.
			restCtx, restEx := restBounds(qts[j:])
			ub := p.w.Semantic*x.cfg.semanticBound(restCtx, idfSum, restEx, exIdfSum) + 1e-9
			if x.cfg.floor > 0 {
				// A document only the remaining terms reach stays below
				// the relevance floor.
				lb = max(lb, p.w.Semantic*x.cfg.contextScore(bestAcc, idfSum))
				closed = ub < x.cfg.floor*lb
			}
			closed = closed || ub+p.other < p.minScore
			closedPlain = closed || closedPlain || ub+zeroOther < p.minScore
			// Or it cannot reach the k-th best score so far: a bound
			// found earlier still holds (final scores only grow), so it
			// is tried first and recomputed only when it falls short.
			closed = closed || ub+p.other < theta
			closedPlain = closed || closedPlain || ub+zeroOther < theta
			if !closedPlain && j > 0 && thetaTries < maxThetaTries && restPostings(qts[j:]) > len(s.touched) {
				thetaTries++
				theta = max(theta, x.theta(s, p, pass, &tq, j, zeroOther, ub, now))
				closed = ub+p.other < theta
				closedPlain = closed || ub+zeroOther < theta
			}
		}
		po := qt.po
		if po == nil {
			continue
		}
		// addDoc and addExample add context posting i of document d and
		// example posting i of example e to their sums, the same
		// arithmetic whether the posting was scanned or looked up.
		addDoc := func(i int, d uint32) {
			tf := x.cfg.pseudoTF(po.tfs[i], x.lens[int(d)*numFields:int(d+1)*numFields], &avg, norms)
			if tf == 0 {
				return
			}
			s.touch(d)
			ds := &s.docs[d]
			ds.acc += qt.idf * x.cfg.saturate(tf)
			if ds.acc > bestAcc && pass(d) {
				bestAcc = ds.acc
			}
		}
		addExample := func(i int, e, d uint32) {
			if s.exAcc[e] == 0 {
				s.exTouched = append(s.exTouched, e)
				s.touch(d)
			}
			s.exAcc[e] += qt.exIdf * x.cfg.saturate(x.cfg.exampleTF(po.extf[i], x.exLen[e], exAvg))
		}
		if closed && len(s.touched)*lookupRatio < len(po.docs)+len(po.ex) {
			// Only the held documents take this term: look them up.
			held := s.sortedHeld()
			i, found := 0, 0
			for _, d := range held {
				if i = gallop(po.docs, i, d); i == len(po.docs) {
					break
				}
				if po.docs[i] == d {
					found++
					addDoc(i, d)
				}
			}
			i = 0
			for _, d := range held {
				m := &x.meta[d]
				for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
					if i = gallop(po.ex, i, e); i == len(po.ex) {
						break
					}
					if po.ex[i] == e {
						addExample(i, e, d)
					}
				}
			}
			res.Skipped += len(po.docs) - found
			continue
		}
		// bq is set whenever there are terms.
		state := x.blockStates(bq, p, &tq, closed, closedPlain, lb, theta, zeroOther)
		for i, d := range po.docs {
			if st := state[d>>blockShift]; st != blockOpen && !s.held(d) && (st == blockClosed || x.flags[d]&flagSig == 0) {
				res.Skipped++
				continue
			}
			if x.flags[d]&flagAlive != 0 {
				addDoc(i, d)
			}
		}
		for i, e := range po.ex {
			d := x.exDoc[e]
			if st := state[d>>blockShift]; (st != blockOpen && !s.held(d) && (st == blockClosed || x.flags[d]&flagSig == 0)) || x.flags[d]&flagAlive == 0 {
				continue
			}
			addExample(i, e, d)
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
	// A document with only a context sum below accMin is below floorLB.
	accMin := x.cfg.contextFloor(floorLB, p.w.Semantic, idfSum)
	// A document whose bound is below theta cannot reach the k best, so
	// it is not bucketed; the best relevance among those that pass the
	// filters still counts for the relevance floor.
	dropped := -1.0
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
			if c.bound < theta {
				if x.cfg.floor > 0 && c.rel > dropped && pass(d) {
					dropped = c.rel
				}
				continue
			}
			s.cands = append(s.cands, c)
		}
	}
	s.bucketSort()
	// The relevance floor is relative to the best relevance among the
	// documents that pass the filters (relevance <= bound < bucket top).
	floor := 0.0
	if x.cfg.floor > 0 {
		best := dropped
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
		hit.MatchedTags, hit.ExpandedTags = tagEvidence(x.cfg.tags, p.soft, x.docTags(x.byID[hit.ID]))
		c := &hit.Components
		if x.cfg.floor > 0 && p.w.Tag*c.Tag+p.w.Semantic*max(c.Context, c.Example) < x.cfg.floor*droppedUB {
			return res, false
		}
	}
	return res, true
}
