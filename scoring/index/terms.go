package index

import (
	"math"

	"github.com/adpnode/adpnode/scoring"
)

// scoreTerms reads the postings term at a time, rarest first: BM25F over
// the context fields and BM25 per example. Before each term it tightens
// the bounds (tighten); a term is then read by looking the held documents
// up (lookupTerm) or by scanning its postings block by block (scanTerm).
// Afterwards every held document has its exact context and example sums;
// a document not held cannot reach the relevance floor or theta.
func (sr *searcher) scoreTerms() {
	for j := range sr.qts {
		if j > 0 {
			sr.x.dropBlocks(sr.bq, &sr.qts[j-1], &sr.tq)
		}
		if !sr.closed && !sr.p.FilterOnly {
			sr.tighten(j)
		}
		sr.releaseHeld()
		qt := &sr.qts[j]
		if qt.po == nil {
			continue
		}
		if sr.closed && len(sr.s.touched)*lookupRatio < len(qt.po.docs)+len(qt.po.ex) {
			sr.lookupTerm(qt)
			continue
		}
		sr.scanTerm(qt)
	}
	sr.x.bestExamples(sr.s, sr.tq.exIdfSum)
}

// tighten bounds what terms j and later can still add to a score and
// closes the index to new documents (closed), or to new agents without
// signals (closedPlain), once that cannot lift a document they alone
// reach to the relevance floor of lb, to the minimum score, or to theta
// (preTheta's bound, which holds to the end: final scores only grow).
func (sr *searcher) tighten(j int) {
	x, p := sr.x, sr.p
	restCtx, restEx := restBounds(sr.qts[j:])
	ub := p.Weights.Semantic*x.cfg.SemanticBound(restCtx, sr.tq.idfSum, restEx, sr.tq.exIdfSum) + 1e-9
	closed, closedPlain := false, sr.closedPlain
	if sr.p.Floor > 0 {
		// A document only the remaining terms reach stays below the
		// relevance floor.
		sr.lb = max(sr.lb, p.Weights.Semantic*x.cfg.ContextScore(sr.bestAcc, sr.tq.idfSum))
		closed = ub < sr.p.Floor*sr.lb
	}
	closed = closed || ub+p.Other < p.MinScore
	closedPlain = closed || closedPlain || ub+sr.zeroOther < p.MinScore
	// Or it cannot reach the k-th best score.
	closed = closed || ub+p.Other < sr.theta
	closedPlain = closed || closedPlain || ub+sr.zeroOther < sr.theta
	// Every agent with signals a term reaches is in already: admitting
	// only those admits none.
	closed = closed || (closedPlain && sr.sigDone != 0)
	sr.closed, sr.closedPlain = closed, closedPlain
}

// releaseHeld lets go of the held documents whose score cannot reach
// theta whatever the unread terms add (the bound of their block), once
// the index admits only agents with signals or none, so that the unread
// terms neither accumulate for them nor look them up and bucket does not
// score them. A document is let go only if its block no longer admits it
// (releaseDocs); the block states only tighten, so it never comes back
// with a partial sum. Their relevance is bounded by droppedUB, which
// finish checks the hits against.
func (sr *searcher) releaseHeld() {
	if !sr.release || sr.bq == nil || !(sr.closed || sr.closedPlain) || math.IsInf(sr.theta, -1) || len(sr.s.touched) <= sr.p.Limit {
		return
	}
	state := sr.x.blockStates(sr.bq, sr.p, &sr.tq, sr.closed, sr.closedPlain, sr.lb, sr.theta, sr.zeroOther)
	sr.droppedUB = max(sr.droppedUB, sr.x.releaseDocs(sr.s, sr.p, sr.bq, state, &sr.tq, sr.theta, sr.zeroOther, sr.sigDone))
}

// addDoc adds context posting i (of document d) of qt to d's context sum,
// the same arithmetic whether the posting was scanned or looked up, and
// keeps bestAcc.
func (sr *searcher) addDoc(qt *queryTerm, i int, d uint32) {
	x, s := sr.x, sr.s
	tf := x.cfg.PseudoTF(qt.po.tfs[i], x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields], sr.tq.avg, sr.tq.norms)
	if tf == 0 {
		return
	}
	s.touch(d)
	ds := &s.docs[d]
	ds.acc += qt.IDF * x.cfg.Saturate(tf)
	if ds.acc > sr.bestAcc && sr.pass(d) {
		sr.bestAcc = ds.acc
	}
}

// addExample adds example posting i of qt (example e of document d) to
// the example's sum.
func (sr *searcher) addExample(qt *queryTerm, i int, e, d uint32) {
	x, s := sr.x, sr.s
	if s.exAcc[e] == 0 {
		s.exTouched = append(s.exTouched, e)
		s.touch(d)
	}
	s.exAcc[e] += qt.ExIDF * x.cfg.Saturate(x.cfg.ExampleTF(qt.po.extf[i], x.exLen[e], sr.tq.exAvg))
}

// lookupTerm reads qt for the held documents only, galloping through its
// postings (the index is closed, so no other document may enter). The
// held documents' sums are then exact for qt; the postings not found
// count as skipped.
func (sr *searcher) lookupTerm(qt *queryTerm) {
	x, po := sr.x, qt.po
	held := sr.s.sortedHeld()
	i, found := 0, 0
	for _, d := range held {
		if x.flags[d]&sr.sigDone != 0 {
			continue // complete already
		}
		if i = gallop(po.docs, i, d); i == len(po.docs) {
			break
		}
		if po.docs[i] == d {
			found++
			sr.addDoc(qt, i, d)
		}
	}
	i = 0
	for _, d := range held {
		if x.flags[d]&sr.sigDone != 0 {
			continue
		}
		m := &x.meta[d]
		for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
			if i = gallop(po.ex, i, e); i == len(po.ex) {
				break
			}
			if po.ex[i] == e {
				sr.addExample(qt, i, e, d)
			}
		}
	}
	sr.res.Skipped += len(po.docs) - found
}

// scanTerm reads qt's postings with block-max pruning: a block whose
// bound cannot reach the floor or theta admits no new document (an open
// block admits all, a plain-closed one only agents with signals); for the
// example postings the bound leaves out qt's context bound, which a
// document they alone reach cannot have (exampleStates). Held documents
// always take the term, so their sums are exact.
func (sr *searcher) scanTerm(qt *queryTerm) {
	x, s, po := sr.x, sr.s, qt.po
	// bq is set whenever there are terms.
	state := x.blockStates(sr.bq, sr.p, &sr.tq, sr.closed, sr.closedPlain, sr.lb, sr.theta, sr.zeroOther)
	done := sr.sigDone // agents complete already
	for i, d := range po.docs {
		f := x.flags[d]
		if f&done != 0 {
			continue
		}
		if st := state[d>>blockShift]; st != blockOpen && !s.held(d) && (st == blockClosed || f&flagSig == 0) {
			sr.res.Skipped++
			continue
		}
		if f&flagAlive != 0 {
			sr.addDoc(qt, i, d)
		}
	}
	if len(po.ex) > 0 && !sr.closed {
		state = x.exampleStates(sr.bq, qt, sr.p, &sr.tq, state, sr.lb, sr.theta, sr.zeroOther)
	}
	for i, e := range po.ex {
		d := po.exDocs[i]
		f := x.flags[d]
		if f&done != 0 {
			continue
		}
		if st := state[d>>blockShift]; (st != blockOpen && !s.held(d) && (st == blockClosed || f&flagSig == 0)) || f&flagAlive == 0 {
			continue
		}
		sr.addExample(qt, i, e, d)
	}
}
