package scoring

import (
	"container/heap"
	"sort"
	"time"
)

// Search ranks the live documents for q at time now. signals may be nil
// (every agent then has zero signals).
//
// Processing follows discovery profile §7.2: candidates come from the
// postings of the query's terms and tags (never from a scan, except for a
// query with neither text nor tags); the relevance part of each
// candidate's score (tag and semantic factors) is exact after the
// postings pass; candidates are bucketed by relevance and fully scored
// from the most relevant bucket down, stopping once no remaining
// candidate can beat the k-th best score even with perfect reputation,
// availability, rating and freshness. Signals are looked up only for the
// candidates scored.
func (x *Index) Search(q Query, signals SignalFunc, now time.Time) Result {
	p := x.cfg.prepare(q)
	res := Result{Weights: p.w, Warnings: p.warnings}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.getScratch()
	defer x.putScratch(s)

	// 1. Text: BM25F over the context fields and BM25 per example, term
	// at a time, in query order.
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
	idfSum, exIdfSum := 0.0, 0.0
	for _, t := range p.terms {
		tn, ok := x.terms[t]
		var po *postings
		if ok {
			po = &x.post[tn]
		}
		df, exdf := 0, 0
		if po != nil {
			df, exdf = len(po.docs), len(po.ex)
		}
		w := idf(n, df)
		idfSum += w
		exw := idf(x.exLive, exdf)
		exIdfSum += exw
		if po == nil {
			continue
		}
		for i, d := range po.docs {
			if !x.meta[d].alive {
				continue
			}
			tf := x.cfg.pseudoTF(po.tfs[i], x.lens[int(d)*numFields:int(d+1)*numFields], &avg)
			if tf == 0 {
				continue
			}
			s.touch(d)
			s.acc[d] += w * x.cfg.saturate(tf)
		}
		for i, e := range po.ex {
			d := x.exDoc[e]
			if !x.meta[d].alive {
				continue
			}
			if s.exAcc[e] == 0 {
				s.exTouched = append(s.exTouched, e)
			}
			s.exAcc[e] += exw * x.cfg.saturate(x.cfg.exampleTF(po.extf[i], x.exLen[e], exAvg))
		}
	}
	for _, e := range s.exTouched {
		d := x.exDoc[e]
		v := x.cfg.exampleScore(s.exAcc[e], exIdfSum)
		s.touch(d)
		if v > s.exBest[d] {
			s.exBest[d] = v
		}
	}

	// 2. Tags: count matched query tags per document.
	for _, qt := range p.soft {
		cn, ok := x.canonIDs[qt.canon]
		if !ok {
			continue
		}
		for _, d := range x.canons[cn].docs {
			if x.meta[d].alive {
				s.touch(d)
				s.tagN[d]++
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

	// 3. Filters and the relevance part of the score.
	required := x.canonNums(p.required)
	excluded := x.canonNums(p.excluded)
	// A required tag that no document declares leaves nothing to return.
	impossible := len(required) < len(p.required)
	protoMask, protoOther := x.protoMask(p.protocols)
	nowNs := now.UnixNano()
	for _, d := range s.touched {
		if impossible {
			break
		}
		m := &x.meta[d]
		if !m.alive || !x.pass(d, m, p, required, excluded, protoMask, protoOther, nowNs) {
			continue
		}
		tagF := 0.0
		if len(p.soft) > 0 {
			tagF = float64(s.tagN[d]) / float64(len(p.soft))
		}
		ctx := x.cfg.contextScore(s.acc[d], idfSum)
		ex := s.exBest[d]
		sem := max(ctx, ex)
		if !p.filterOnly && tagF == 0 && sem == 0 {
			continue
		}
		s.cands = append(s.cands, cand{doc: d, rel: p.w.Tag*tagF + p.w.Semantic*sem, tag: tagF, ctx: ctx, ex: ex})
	}
	res.Candidates = len(s.cands)

	// 4. Exact scoring, most relevant bucket first, with the max-score
	// stopping rule checked at each bucket boundary.
	s.bucketSort()
	h := &hitHeap{}
	for b := nBuckets - 1; b >= 0; b-- {
		lo, hi := s.starts[b], s.starts[b+1]
		if lo == hi {
			continue
		}
		ub := float64(b+1)/nBuckets + p.other + 1e-9
		if ub < p.minScore || (h.Len() == p.limit && (*h)[0].Score > ub) {
			break
		}
		for _, ci := range s.order[lo:hi] {
			c := &s.cands[ci]
			m := &x.meta[c.doc]
			id := x.ids[c.doc]
			var sig Signals
			if signals != nil {
				sig = signals(id)
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
