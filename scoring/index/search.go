package index

import (
	"container/heap"
	"math"
	"time"

	"github.com/adpnode/adpnode/scoring"
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
// before any term is read (preTheta): some tag matches, the documents
// sharing the rarest terms and, unless those already close the index,
// every agent with signals that a tag or a term reaches, whose postings
// are read first and then skipped.
// The relevance part (tag and semantic factors) of every admitted
// candidate is then exact; candidates are bucketed by an upper bound of
// their score (exact for agents without signals) and fully scored from
// the best bucket down, stopping once no remaining candidate can beat the
// k-th best score. Signals are looked up only for the candidates scored.
//
// The phases are the methods of searcher, in the order search calls them.
func (x *Index) Search(q scoring.Query, signals scoring.SignalFunc, now time.Time) scoring.Result {
	res, ok := x.search(q, signals, now, true)
	if !ok {
		res, _ = x.search(q, signals, now, false)
	}
	return res
}

// search is Search. With release it lets go of the documents that cannot
// reach the k-th best score: the tag matches before reading the terms
// (releaseTags) and held documents as the terms are read (releaseHeld);
// their relevance is then only bounded, so the relevance floor may come
// out lower than it is, and search reports false when a hit is below the
// floor that bound would allow: the caller searches again without.
func (x *Index) search(q scoring.Query, signals scoring.SignalFunc, now time.Time, release bool) (scoring.Result, bool) {
	p := x.cfg.Prepare(q)
	sr := searcher{x: x, p: p, signals: signals, now: now, nowNs: now.UnixNano(), release: release}
	sr.res = scoring.Result{Weights: p.Weights, Warnings: p.Warnings, RelevanceFloor: p.Floor}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !sr.resolveFilters() {
		return sr.res, true
	}
	sr.s = x.getScratch()
	defer x.putScratch(sr.s)
	sr.matchTags()
	sr.planTerms()
	sr.seedTheta()
	if release {
		sr.releaseTags()
	}
	sr.scoreTerms()
	sr.bucket()
	sr.h = &hitHeap{}
	sr.complete()
	return sr.res, sr.finish()
}

// searcher is one search under the index's read lock: the Plan query,
// the scratch space of the documents touched, and the bounds the phases
// pass on to each other. Every bound only ever tightens: lb and theta
// grow, closed and closedPlain once set stay set.
type searcher struct {
	x       *Index
	p       *scoring.Plan
	signals scoring.SignalFunc
	now     time.Time
	nowNs   int64
	res     scoring.Result
	s       *scratch
	release bool // releaseTags and releaseHeld may let documents go

	// Hard filters resolved to canon numbers and protocol bits.
	required, excluded []uint32
	protoMask          uint64
	protoOther         []string

	// The text part of the query, rarest term first, and the per-block
	// bounds of its terms (nil without terms).
	qts []queryTerm
	tq  textQuery
	bq  *blockQuery

	// lb is a lower bound of the best relevance among the documents that
	// pass the filters; bestAcc the largest context sum of such a
	// document so far.
	lb, bestAcc float64
	// theta is a lower bound of the final k-th best score (-Inf while
	// unknown).
	theta float64
	// zeroOther bounds what the factors other than relevance add to an
	// agent without signals (all of them, p.Other, when signals are
	// pulled).
	zeroOther float64
	// droppedUB bounds the relevance of the documents releaseTags and
	// releaseHeld let go (-Inf when none).
	droppedUB float64
	// closed: admit no new documents; closedPlain: admit only agents with
	// signals (the others' scores are bounded exactly).
	closed, closedPlain bool
	// sigDone holds flagSig once completeSignals has finished every agent
	// with signals that a term reaches (zero before, and with pulled
	// signals): the terms are no longer read for them, and closedPlain
	// closes. sigBest is the best relevance of those releaseSignals let
	// go that pass the filters (-1 for none); it is exact.
	sigDone uint8
	sigBest float64

	// floor is the final relevance floor (bucket); h the k best hits
	// (complete).
	floor float64
	h     *hitHeap
}

// pass reports whether live document d passes the hard filters.
func (sr *searcher) pass(d uint32) bool {
	m := &sr.x.meta[d]
	return m.alive && sr.x.pass(d, m, sr.p, sr.required, sr.excluded, sr.protoMask, sr.protoOther, sr.nowNs)
}

// resolveFilters turns the required and excluded tags and the protocols
// into numbers. It reports false when no document can pass: a required
// tag that no document declares.
func (sr *searcher) resolveFilters() bool {
	x, p := sr.x, sr.p
	sr.required = x.canonNums(p.Required)
	sr.excluded = x.canonNums(p.Excluded)
	if len(sr.required) < len(p.Required) {
		return false
	}
	sr.protoMask, sr.protoOther = x.protoMask(p.Protocols)
	return true
}

// matchTags counts the matched query tags of every document that declares
// one (a filter-only query touches every live document) and sets lb to
// the best tag relevance among those that pass the filters. Afterwards
// the tag factor of every touched document is exact.
func (sr *searcher) matchTags() {
	x, p, s := sr.x, sr.p, sr.s
	for _, qt := range p.Soft {
		cn, ok := x.canonIDs[qt.Canon]
		if !ok {
			continue
		}
		for _, d := range x.canons[cn].docs {
			if x.flags[d]&flagAlive != 0 {
				s.touch(d)
				s.docs[d].tagN++
			}
		}
	}
	if p.FilterOnly {
		for d, f := range x.flags {
			if f&flagAlive != 0 {
				s.touch(uint32(d))
			}
		}
	}
	if len(p.Soft) > 0 && len(p.Terms) > 0 && sr.p.Floor > 0 {
		for _, d := range s.touched {
			if v := p.Weights.Tag * float64(s.docs[d].tagN) / float64(len(p.Soft)); v > sr.lb && sr.pass(d) {
				sr.lb = v
			}
		}
	}
}

// planTerms looks the query terms up, orders them rarest first and
// computes each term's upper bound on a context and an example score
// (queryTerm.ubCtx, ubEx), plus the per-block bounds (initBlocks). No
// posting is read yet.
func (sr *searcher) planTerms() {
	x, p, s := sr.x, sr.p, sr.s
	n := x.live
	var mean [scoring.NumFields]float64
	var exAvg float64
	mean, s.avg, exAvg = x.cfg.LengthStats(&x.lenSums, n, x.exLive)
	avg := &s.avg
	x.cfg.FillNorms(&s.norms, &mean, avg)
	ts := s.terms[:0]
	for i, t := range p.Terms {
		st := scoring.Term{Text: t}
		if tn, ok := x.terms[t]; ok {
			st.DF, st.ExDF = len(x.post[tn].docs), len(x.post[tn].ex)
		}
		st.IDF, st.ExIDF = x.cfg.TermWeights(n, st.DF, x.exLive, st.ExDF, p.QTF[i])
		ts = append(ts, st)
	}
	ts, warn := scoring.SelectTerms(ts)
	sr.res.Warnings = append(sr.res.Warnings, warn...)
	s.terms = ts
	idfSum, exIdfSum := scoring.SortTerms(ts)
	qts := make([]queryTerm, len(ts))
	for i, t := range ts {
		qts[i].Term = t
		if tn, ok := x.terms[t.Text]; ok {
			qts[i].po = &x.post[tn]
		}
		qts[i].ubCtx, qts[i].ubEx = termBounds(x.cfg, &qts[i], &s.norms, avg, exAvg)
	}
	sr.qts = qts
	sr.tq = textQuery{qts: qts, idfSum: idfSum, exIdfSum: exIdfSum, avg: avg, norms: &s.norms, exAvg: exAvg}
	if !p.FilterOnly && len(qts) > 0 {
		sr.bq = x.initBlocks(sr.s, &sr.tq)
	}
}

// seedTheta sets the first lower bound of the final k-th best score. With
// pushed signals it completes documents before any term is read
// (preTheta); the bound holds because final scores only grow. When
// preTheta completed the agents with signals, they are complete from
// then on (sigDone), and those below the bound are let go
// (releaseSignals). With pulled signals nothing is
// known before scoring: theta stays -Inf and every agent is bounded as
// one with signals.
func (sr *searcher) seedTheta() {
	x, p := sr.x, sr.p
	sr.theta = math.Inf(-1)
	sr.droppedUB = math.Inf(-1)
	sr.sigBest = -1
	sr.zeroOther = x.zeroOther(p)
	if sr.signals != nil {
		sr.zeroOther = p.Other
	} else if !p.FilterOnly && len(sr.qts) > 0 {
		// What a document only the terms reach scores at most, as
		// tighten bounds it before the first term.
		ctx, ex := restBounds(sr.qts)
		ubNew := p.Weights.Semantic*x.cfg.SemanticBound(ctx, sr.tq.idfSum, ex, sr.tq.exIdfSum) + 1e-9 + p.Other
		var complete bool
		sr.theta, complete = x.preTheta(sr.s, p, sr.pass, &sr.tq, sr.now, ubNew)
		if complete {
			sr.sigDone = flagSig
			sr.releaseSignals()
		}
	}
}

// releaseSignals lets go of the agents with signals, complete since
// preTheta (completeSignals, listed in s.sigs), that cannot be hits:
// their exact score is below theta, they fail the filters or they are
// overloaded. Their relevance is exact, so the best of those that pass
// the filters counts for the relevance floor (sigBest) as bucket counts
// the held documents below theta; the others stay held with their final
// sums for bucket.
func (sr *searcher) releaseSignals() {
	x, p, s := sr.x, sr.p, sr.s
	released := false
	for _, sd := range s.sigs {
		d := sd.doc
		if sd.acc > sr.bestAcc && sr.pass(d) {
			sr.bestAcc = sd.acc
		}
		if sd.rel+p.Other >= sr.theta && sr.pass(d) {
			if v, overloaded := x.otherFactors(p, d, sr.now, sr.nowNs); !overloaded && sd.rel+v >= sr.theta {
				continue
			}
			sr.sigBest = max(sr.sigBest, sd.rel)
		} else if sd.rel > sr.sigBest && sr.pass(d) {
			sr.sigBest = sd.rel
		}
		s.docs[d] = docScratch{}
		s.marks[d>>6] &^= 1 << (d & 63)
		released = true
	}
	if released {
		s.dropUnheld(x.exDoc)
	}
}

// releaseTags lets go of the tag matches whose score bound is below theta
// (dropTagDocs), so that they neither hold blocks open nor need lookups.
// Their relevance is bounded by droppedUB, which finish checks the hits
// against.
func (sr *searcher) releaseTags() {
	if sr.bq == nil || len(sr.p.Soft) == 0 || math.IsInf(sr.theta, -1) {
		return
	}
	held := len(sr.s.touched)
	sr.droppedUB = sr.x.dropTagDocs(sr.s, sr.p, sr.bq, &sr.tq, sr.theta, sr.zeroOther)
	sr.res.Released = held - len(sr.s.touched)
}

// bucket computes the exact relevance (tag and semantic factors) of the
// held documents that can still reach the floor of lb, bounds each one's
// score (relevance plus the most the other factors add: exact for agents
// without signals) and buckets those whose bound reaches theta. It then
// sets the final relevance floor from the best relevance among the
// documents that pass the filters. The hard filters are checked lazily,
// only for the documents examined.
func (sr *searcher) bucket() {
	x, p, s := sr.x, sr.p, sr.s
	idfSum := sr.tq.idfSum
	pull := sr.signals != nil
	sr.lb = max(sr.lb, p.Weights.Semantic*x.cfg.ContextScore(sr.bestAcc, idfSum))
	floorLB := sr.p.Floor * sr.lb // below it a document is below the final floor too
	// A document with only a context sum below accMin is below floorLB.
	accMin := x.cfg.ContextFloor(floorLB, p.Weights.Semantic, idfSum)
	// A document whose bound is below theta cannot reach the k best, so
	// it is not bucketed; the best relevance among those that pass the
	// filters still counts for the relevance floor.
	dropped := sr.sigBest
	for _, d := range s.touched {
		if ds := &s.docs[d]; ds.acc < accMin && ds.tagN == 0 && ds.exBest == 0 {
			continue
		}
		if c, ok := x.relevance(s, p, d, idfSum); ok && c.rel >= floorLB {
			if pull || x.flags[d]&flagSig != 0 {
				c.bound = c.rel + p.Other
			} else {
				c.bound = c.rel + sr.zeroOther
			}
			if c.bound < sr.theta {
				if sr.p.Floor > 0 && c.rel > dropped && sr.pass(d) {
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
	if sr.p.Floor > 0 {
		best := dropped
		for b := nBuckets - 1; b >= 0 && float64(b+1)/nBuckets > best; b-- {
			for _, ci := range s.order[s.starts[b]:s.starts[b+1]] {
				if c := &s.cands[ci]; c.rel > best && sr.pass(c.doc) {
					best = c.rel
				}
			}
		}
		sr.floor = sr.p.Floor * max(best, 0)
	}
}

// complete scores the candidates exactly, highest bucket first, and keeps
// the k best in h. It stops once the top of the next bucket cannot beat
// the k-th best score or the minimum score (max-score): the hits are
// then the exact k best.
func (sr *searcher) complete() {
	p, s := sr.p, sr.s
	for b := nBuckets - 1; b >= 0; b-- {
		lo, hi := s.starts[b], s.starts[b+1]
		if lo == hi {
			continue
		}
		ub := float64(b+1)/nBuckets + 1e-9
		if ub < p.MinScore || (sr.h.Len() == p.Limit && (*sr.h)[0].Score > ub) {
			break
		}
		for _, ci := range s.order[lo:hi] {
			sr.score(&s.cands[ci])
		}
	}
}

// score scores one candidate exactly (signals looked up now) and offers
// it to h.
func (sr *searcher) score(c *cand) {
	x, p := sr.x, sr.p
	if c.rel < sr.floor || !sr.pass(c.doc) {
		return
	}
	sr.res.Candidates++
	m := &x.meta[c.doc]
	id := x.ids[c.doc]
	var sig scoring.Signals
	switch {
	case sr.signals != nil:
		sig = sr.signals(id)
	case m.hasSig:
		sig = x.docSig[c.doc]
	}
	if scoring.Overloaded(sig, m.maxConc) {
		return
	}
	sr.res.Scored++
	comp := scoring.Components{
		Tag: c.tag, Context: c.ctx, Example: c.ex,
		Reputation:   x.cfg.Reputation(sig),
		Availability: x.cfg.Availability(sig, m.maxConc, m.status, sr.now),
		Rating:       scoring.Rating(sig),
		Freshness:    scoring.Freshness(m.indexed, m.expires, sr.nowNs),
	}
	hw := scoring.HitWeights(p.Weights, c.ctx, c.ex)
	score := comp.Dot(hw)
	if score < p.MinScore {
		return
	}
	h := sr.h
	if h.Len() == p.Limit && !scoring.Better(score, id, (*h)[0].Score, (*h)[0].ID) {
		return
	}
	hit := scoring.Hit{ID: id, Score: score, Components: comp, Weights: hw,
		Stale: m.expires != 0 && sr.nowNs >= m.expires}
	hit.Examples = x.exampleMatches(sr.s, m, sr.tq.exIdfSum)
	if h.Len() < p.Limit {
		heap.Push(h, hit)
	} else {
		(*h)[0] = hit
		heap.Fix(h, 0)
	}
}

// finish orders the hits best first and adds their tag evidence. It
// reports false when a hit lies below the relevance floor that the
// released documents (droppedUB) might have set: only then can releasing
// them have changed the answer.
func (sr *searcher) finish() bool {
	x, p, h := sr.x, sr.p, sr.h
	res := &sr.res
	res.Hits = make([]scoring.Hit, h.Len())
	for i := len(res.Hits) - 1; i >= 0; i-- {
		res.Hits[i] = heap.Pop(h).(scoring.Hit)
	}
	for i := range res.Hits {
		hit := &res.Hits[i]
		hit.MatchedTags, hit.ExpandedTags = scoring.TagEvidence(x.cfg.Tags(), p.Soft, x.docTags(x.byID[hit.ID]))
		c := &hit.Components
		if sr.p.Floor > 0 && p.Weights.Tag*c.Tag+p.Weights.Semantic*max(c.Context, c.Example) < sr.p.Floor*sr.droppedUB {
			return false
		}
	}
	return true
}
