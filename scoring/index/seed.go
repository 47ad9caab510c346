package index

import (
	"cmp"
	"container/heap"
	"math"
	"slices"

	"github.com/adpnode/adpnode/scoring"
)

// seedFactor times the result limit is the number of held documents whose
// relevance theta completes (seeds) before it bounds the k-th score.
const seedFactor = 4

// textQuery is what completing a document's relevance needs: the query
// terms in processing order and the length statistics of this search.
type textQuery struct {
	qts              []queryTerm
	idfSum, exIdfSum float64
	avg              *[scoring.NumFields]float64
	norms            *scoring.NormTable
	exAvg            float64
}

// seed completes the relevance of some held documents: term at a time, a
// document's relevance is partial until every term has been read, and a
// bound of the k-th score from partial relevance alone is too low to
// close early. rels holds the partial relevance of s.touched (-Inf for
// none); seed replaces the entries of up to seedFactor * limit documents
// with the best partial relevance, and as many among those the next
// unread term (next indexes t.qts) also has, with their final relevance,
// read from the document-ordered postings (finalRelevances). The sums are
// added in the same order as the search adds them, so they are the same
// numbers.
func (x *Index) seed(s *scratch, p *scoring.Plan, t *textQuery, next int, rels []float64) {
	n := min(seedFactor*p.Limit, len(rels))
	if n == 0 {
		return
	}
	var nextPo *postings
	if next < len(t.qts) && t.qts[next].DF > 0 {
		nextPo = t.qts[next].po
	}
	if nextPo != nil {
		for _, d := range nextPo.docs {
			if s.held(d) {
				s.docs[d].inNext = true
			}
		}
	}
	best, both := s.seeds[:0], s.seeds2[:0]
	for i, r := range rels {
		if math.IsInf(r, -1) {
			continue
		}
		pushSeed(&best, rels, n, int32(i))
		if nextPo != nil && s.docs[s.touched[i]].inNext {
			pushSeed(&both, rels, n, int32(i))
		}
	}
	if nextPo != nil {
		for _, d := range nextPo.docs {
			if s.held(d) {
				s.docs[d].inNext = false
			}
		}
	}
	done := s.done[:0]
	for _, i := range best {
		done = append(done, seedDoc{doc: s.touched[i], at: i})
	}
	for _, i := range both {
		done = append(done, seedDoc{doc: s.touched[i], at: i})
	}
	x.finalRelevances(s, p, t, done)
	for _, sd := range done {
		rels[sd.at] = sd.rel
	}
	s.seeds, s.seeds2, s.done = best, both, done
}

// pushSeed keeps in top the n indexes with the largest rels.
func pushSeed(top *[]int32, rels []float64, n int, i int32) {
	h := seedHeap{rels: rels, idx: top}
	switch {
	case len(*top) < n:
		heap.Push(h, i)
	case rels[i] > rels[(*top)[0]]:
		(*top)[0] = i
		heap.Fix(h, 0)
	}
}

// seedDoc is a document whose final relevance finalRelevances computes,
// with what its caller keeps beside it.
type seedDoc struct {
	doc   uint32
	at    int32   // seed: its index in touched
	rel   float64 // finalRelevances: the final relevance
	other float64 // preTheta: what the other factors add
}

// finalRelevances sets the relevance every document of docs (held or
// not) will have once every term is read. It sorts docs by document and
// reads each term's context and example postings with a cursor that only
// moves forward (gallop), instead of searching them afresh for every
// document: a document's examples are numbered after the previous
// document's, so both cursors advance together. Each document's sums are
// added term by term in processing order, as the search adds them.
func (x *Index) finalRelevances(s *scratch, p *scoring.Plan, t *textQuery, docs []seedDoc) {
	slices.SortFunc(docs, func(a, b seedDoc) int { return cmp.Compare(a.doc, b.doc) })
	n := len(t.qts)
	if cap(s.cursors) < 2*n {
		s.cursors = make([]int, 2*n)
	}
	cur, exCur := s.cursors[:n], s.cursors[n:2*n]
	clear(cur)
	clear(exCur)
	for k := range docs {
		d := docs[k].doc
		lens := x.lens[int(d)*scoring.NumFields : int(d+1)*scoring.NumFields]
		acc := 0.0
		for i := range t.qts {
			qt := &t.qts[i]
			if qt.po == nil || qt.DF == 0 {
				continue
			}
			j := gallop(qt.po.docs, cur[i], d)
			cur[i] = j
			if j == len(qt.po.docs) || qt.po.docs[j] != d {
				continue
			}
			tf := x.cfg.PseudoTF(qt.po.tfs[j], lens, t.avg, t.norms)
			if tf == 0 {
				continue
			}
			acc += qt.IDF * x.cfg.Saturate(tf)
		}
		exBest := 0.0
		m := &x.meta[d]
		for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
			a := 0.0
			for i := range t.qts {
				qt := &t.qts[i]
				if qt.po == nil || qt.ExDF == 0 {
					continue
				}
				j := gallop(qt.po.ex, exCur[i], e)
				exCur[i] = j
				if j < len(qt.po.ex) && qt.po.ex[j] == e {
					a += qt.ExIDF * x.cfg.Saturate(x.cfg.ExampleTF(qt.po.extf[j], x.exLen[e], t.exAvg))
				}
			}
			if v := x.cfg.ExampleScore(a, t.exIdfSum); v > exBest {
				exBest = v
			}
		}
		tagF := 0.0
		if len(p.Soft) > 0 {
			tagF = float64(s.docs[d].tagN) / float64(len(p.Soft))
		}
		docs[k].rel = p.Weights.Tag*tagF + p.Weights.Semantic*max(x.cfg.ContextScore(acc, t.idfSum), exBest)
	}
}

// seedHeap is a min-heap of indexes into rels, by rel.
type seedHeap struct {
	rels []float64
	idx  *[]int32
}

func (h seedHeap) Len() int           { return len(*h.idx) }
func (h seedHeap) Less(i, j int) bool { return h.rels[(*h.idx)[i]] < h.rels[(*h.idx)[j]] }
func (h seedHeap) Swap(i, j int)      { (*h.idx)[i], (*h.idx)[j] = (*h.idx)[j], (*h.idx)[i] }
func (h seedHeap) Push(v any)         { *h.idx = append(*h.idx, v.(int32)) }
func (h seedHeap) Pop() any {
	old := *h.idx
	v := old[len(old)-1]
	*h.idx = old[:len(old)-1]
	return v
}
