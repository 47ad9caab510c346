package index

import (
	"cmp"
	"slices"

	"github.com/adpnode/adpnode/scoring"
)

// textQuery is what completing a document's relevance needs: the query
// terms in processing order and the length statistics of this search.
type textQuery struct {
	qts              []queryTerm
	idfSum, exIdfSum float64
	avg              *[scoring.NumFields]float64
	norms            *scoring.NormTable
	exAvg            float64
}

// sigDoc is an agent with signals that completeSignals completed, with
// its relevance and context sum.
type sigDoc struct {
	doc      uint32
	rel, acc float64
}

// seedDoc is a document whose final relevance finalRelevances computes,
// with what its caller keeps beside it.
type seedDoc struct {
	doc   uint32
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
