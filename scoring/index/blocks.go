package index

import (
	"math"

	"github.com/adpnode/adpnode/scoring"
)

// Documents are grouped in blocks of 1<<blockShift consecutive numbers.
// A term with at least blockMinPostings postings (context and example)
// keeps, per block in which it has a posting, the bound of its
// contribution to the documents of that block (block-max). A search sums
// those bounds over the query terms into a bound per block and admits no
// new document from a block whose bound cannot reach the k-th best score
// or the relevance floor, without reading more than a bit of each skipped
// posting. Postings are appended in document order, so the block bounds
// of a term are appended in block order too.
const (
	blockShift       = 8
	blockMinPostings = 256
)

// blockBound bounds a term's contribution within one block, like bound
// does within the whole index. Field and example lengths are capped at
// 255 (a lower bound of the length, so still an upper bound of the
// contribution). Dead documents still count until compaction.
type blockBound struct {
	blk    uint32
	maxTF  [scoring.NumFields]uint8
	minLen [scoring.NumFields]uint8
	exTF   uint8
	exLen  uint8
}

func capLen(l uint16) uint8 { return uint8(min(l, math.MaxUint8)) }

// widenDoc widens the bound by a context posting.
func (b *blockBound) widenDoc(packed uint16, lens []uint16) {
	for f := range scoring.NumFields {
		tf := uint8((packed >> (scoring.TFBits * f)) & scoring.TFMax)
		if tf == 0 {
			continue
		}
		if l := capLen(lens[f]); b.maxTF[f] == 0 || l < b.minLen[f] {
			b.minLen[f] = l
		}
		b.maxTF[f] = max(b.maxTF[f], tf)
	}
}

// widenExample widens the bound by an example posting.
func (b *blockBound) widenExample(tf uint8, n uint16) {
	if tf == 0 {
		return
	}
	if l := capLen(n); b.exTF == 0 || l < b.exLen {
		b.exLen = l
	}
	b.exTF = max(b.exTF, tf)
}

// blockOf returns the bound of block blk, appending it when the term has
// none yet; blk is never below the last block.
func (p *postings) blockOf(blk uint32) *blockBound {
	if n := len(p.blocks); n > 0 && p.blocks[n-1].blk == blk {
		return &p.blocks[n-1]
	}
	p.blocks = append(p.blocks, blockBound{blk: blk})
	return &p.blocks[len(p.blocks)-1]
}

// addDocBlock records the context posting just appended for document d.
func (x *Index) addDocBlock(p *postings, d uint32, packed uint16) {
	if p.blocks == nil {
		x.maybeBuildBlocks(p)
		return
	}
	p.blockOf(d>>blockShift).widenDoc(packed, x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields])
}

// addExampleBlock records the example posting just appended for example
// e of document d.
func (x *Index) addExampleBlock(p *postings, d uint32, tf uint8, n uint16) {
	if p.blocks == nil {
		x.maybeBuildBlocks(p)
		return
	}
	p.blockOf(d>>blockShift).widenExample(tf, n)
}

// maybeBuildBlocks builds the block bounds of a term once it has enough
// postings.
func (x *Index) maybeBuildBlocks(p *postings) {
	if len(p.docs)+len(p.ex) >= blockMinPostings {
		x.buildBlocks(p)
	}
}

// buildBlocks computes the block bounds of a term from its postings,
// merging the context and example postings in block order.
func (x *Index) buildBlocks(p *postings) {
	p.blocks = make([]blockBound, 0, 8)
	x.inBlockOrder(p, func(i int, blk uint32) {
		d := p.docs[i]
		p.blockOf(blk).widenDoc(p.tfs[i], x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields])
	}, func(j int, blk uint32) {
		p.blockOf(blk).widenExample(p.extf[j], x.exLen[p.ex[j]])
	})
}

// inBlockOrder calls doc for every context posting and example for every
// example posting of a term, merged in block order, with the block.
func (x *Index) inBlockOrder(po *postings, doc, example func(i int, blk uint32)) {
	i, j := 0, 0
	for i < len(po.docs) || j < len(po.ex) {
		var bd, be uint32 = math.MaxUint32, math.MaxUint32
		if i < len(po.docs) {
			bd = po.docs[i] >> blockShift
		}
		if j < len(po.ex) {
			be = po.exDocs[j] >> blockShift
		}
		if bd <= be {
			doc(i, bd)
			i++
		} else {
			example(j, be)
			j++
		}
	}
}

// blockQuery holds, for the terms not read yet, the sum per block of
// their bounds on the BM25F sum and on an example's BM25 sum, and the
// admission state of each block for the term being read.
type blockQuery struct {
	ctx, ex []float64 // per block
	state   []uint8   // per block: blockOpen, blockClosedPlain or blockClosed
	sem     []float64 // dropTagDocs: per block, the weighted semantic bound of all terms
	// exampleStates: per block, the context bound of the term being read
	// and the states for its example postings.
	cur     []float64
	exState []uint8
}

// Admission states of a block (and of the whole index) for documents not
// held yet.
const (
	blockOpen        = iota
	blockClosedPlain // only agents with signals may enter
	blockClosed      // none may enter
)

// termBlocks calls fn(block, ctx, ex) for every block in which qt has a
// posting, with the most it adds there to a BM25F sum and to an example's
// BM25 sum. A term without block bounds has few postings: they are read
// and each block gets its largest exact contribution among live ones.
func (x *Index) termBlocks(qt *queryTerm, t *textQuery, fn func(blk uint32, ctx, ex float64)) {
	po := qt.po
	if po == nil {
		return
	}
	if po.blocks != nil {
		sat := x.cfg.Saturate
		for k := range po.blocks {
			b := &po.blocks[k]
			ctx, ex := 0.0, 0.0
			if qt.DF > 0 {
				tf := 0.0
				for f := range scoring.NumFields {
					if b.maxTF[f] > 0 {
						tf += float64(b.maxTF[f]) * t.norms.Short(f, b.minLen[f])
					}
				}
				if tf > 0 {
					ctx = qt.IDF * sat(tf)
				}
			}
			if qt.ExDF > 0 && b.exTF > 0 {
				ex = qt.ExIDF * sat(x.cfg.ExampleTF(b.exTF, uint16(b.exLen), t.exAvg))
			}
			fn(b.blk, ctx, ex)
		}
		return
	}
	cur, ctx, ex := uint32(math.MaxUint32), 0.0, 0.0
	flush := func(blk uint32) {
		if blk != cur {
			if cur != math.MaxUint32 && (ctx > 0 || ex > 0) {
				fn(cur, ctx, ex)
			}
			cur, ctx, ex = blk, 0, 0
		}
	}
	// Context and example postings are merged in block order so that
	// each block is reported once.
	x.inBlockOrder(po, func(i int, blk uint32) {
		d := po.docs[i]
		flush(blk)
		if x.flags[d]&flagAlive != 0 {
			if tf := x.cfg.PseudoTF(po.tfs[i], x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields], t.avg, t.norms); tf > 0 {
				ctx = max(ctx, qt.IDF*x.cfg.Saturate(tf))
			}
		}
	}, func(j int, blk uint32) {
		e := po.ex[j]
		flush(blk)
		if x.flags[po.exDocs[j]]&flagAlive != 0 {
			ex = max(ex, qt.ExIDF*x.cfg.Saturate(x.cfg.ExampleTF(po.extf[j], x.exLen[e], t.exAvg)))
		}
	})
	flush(math.MaxUint32)
}

// initBlocks sums the block bounds of every query term.
func (x *Index) initBlocks(s *scratch, t *textQuery) *blockQuery {
	nb := len(x.ids)>>blockShift + 1
	bq := &s.blocks
	bq.ctx = resize(bq.ctx, nb)
	bq.ex = resize(bq.ex, nb)
	if cap(bq.state) < nb {
		bq.state = make([]uint8, nb)
	}
	bq.state = bq.state[:nb]
	for i := range t.qts {
		x.termBlocks(&t.qts[i], t, func(blk uint32, ctx, ex float64) {
			bq.ctx[blk] += ctx
			bq.ex[blk] += ex
		})
	}
	return bq
}

// resize returns a zeroed slice of n float64, reusing v's array.
func resize(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	v = v[:n]
	clear(v)
	return v
}

// drop removes qt's bounds from the sums once it has been read.
func (x *Index) dropBlocks(bq *blockQuery, qt *queryTerm, t *textQuery) {
	x.termBlocks(qt, t, func(blk uint32, ctx, ex float64) {
		bq.ctx[blk] = max(bq.ctx[blk]-ctx, 0)
		bq.ex[blk] = max(bq.ex[blk]-ex, 0)
	})
}

// semantic returns the bound of the weighted semantic factor of a
// document of block b that only the unread terms can reach. The sums were
// built by adding and subtracting, so a relative margin covers their
// rounding.
func (bq *blockQuery) semantic(c *scoring.Model, w float64, b int, t *textQuery) float64 {
	return w*c.SemanticBound(bq.ctx[b]*(1+1e-9), t.idfSum, bq.ex[b]*(1+1e-9), t.exIdfSum) + 1e-9
}

// blockStates sets the admission state of every block for the term about
// to be read: the state of the whole index (closed, closedPlain), or
// closed where the bound of the block cannot reach the relevance floor,
// the minimum score or the k-th best score so far (theta), as Search
// decides for the whole index. It returns the states, by block.
func (x *Index) blockStates(bq *blockQuery, p *scoring.Plan, t *textQuery, closed, closedPlain bool, lb, theta, zeroOther float64) []uint8 {
	all := uint8(blockOpen)
	switch {
	case closed:
		all = blockClosed
	case closedPlain:
		all = blockClosedPlain
	}
	floorLB := p.Floor * lb
	for b := range bq.state {
		st := all
		if st != blockClosed {
			st = max(st, admission(bq.semantic(x.cfg, p.Weights.Semantic, b, t), p, floorLB, theta, zeroOther))
		}
		bq.state[b] = st
	}
	return bq.state
}

// admission returns the state of a block whose documents not held yet
// reach at most ub with their weighted semantic factor: closed when that
// cannot reach the relevance floor of lb (floorLB), the minimum score or
// theta, closed to agents without signals when it cannot with their other
// factors (zeroOther), open otherwise.
func admission(ub float64, p *scoring.Plan, floorLB, theta, zeroOther float64) uint8 {
	switch {
	case (p.Floor > 0 && ub < floorLB) || ub+p.Other < p.MinScore || ub+p.Other < theta:
		return blockClosed
	case ub+zeroOther < p.MinScore || ub+zeroOther < theta:
		return blockClosedPlain
	}
	return blockOpen
}

// exampleStates returns the admission states (blockStates' state,
// tightened) for the example postings of qt, the term being read, after
// its context postings: a document they reach that is not held has no
// context posting of qt that was admitted, and no sum from the terms
// before (or it could not reach theta), so its context sum can come only
// from the terms after qt, and its block's bound leaves out qt's context
// bound there. The examples of a document share its block, so it is
// admitted or not with all of them and none of its example sums misses
// qt. A block refused here refuses the document for the later terms too,
// whose bounds are at most this one.
func (x *Index) exampleStates(bq *blockQuery, qt *queryTerm, p *scoring.Plan, t *textQuery, state []uint8, lb, theta, zeroOther float64) []uint8 {
	n := len(state)
	bq.cur = resize(bq.cur, n)
	if cap(bq.exState) < n {
		bq.exState = make([]uint8, n)
	}
	es := bq.exState[:n]
	copy(es, state)
	if qt.DF == 0 {
		return es
	}
	x.termBlocks(qt, t, func(blk uint32, ctx, _ float64) { bq.cur[blk] = ctx })
	floorLB := p.Floor * lb
	w := p.Weights.Semantic
	for b, st := range es {
		if st == blockClosed || bq.cur[b] == 0 {
			continue
		}
		ctx := max(bq.ctx[b]-bq.cur[b], 0)
		ub := w*x.cfg.SemanticBound(ctx*(1+1e-9), t.idfSum, bq.ex[b]*(1+1e-9), t.exIdfSum) + 1e-9
		es[b] = max(st, admission(ub, p, floorLB, theta, zeroOther))
	}
	bq.exState = es
	return es
}

// dropTagDocs releases the documents held by a tag match whose score
// cannot reach theta, whatever the terms add (the bound of their block):
// they are no longer held, so the terms do not accumulate for them. It
// returns the largest bound of their relevance (-Inf for none), which the
// relevance floor must allow for.
func (x *Index) dropTagDocs(s *scratch, p *scoring.Plan, bq *blockQuery, t *textQuery, theta, zeroOther float64) float64 {
	sem := resize(bq.sem, len(bq.ctx))
	for b := range sem {
		sem[b] = bq.semantic(x.cfg, p.Weights.Semantic, b, t)
	}
	bq.sem = sem
	ub := math.Inf(-1)
	keep := s.touched[:0]
	per := p.Weights.Tag / float64(len(p.Soft))
	for _, d := range s.touched {
		ds := &s.docs[d]
		rel := per*float64(ds.tagN) + sem[d>>blockShift]
		other := zeroOther
		if x.flags[d]&flagSig != 0 {
			other = p.Other
		}
		if rel+other < theta {
			ub = max(ub, rel)
			*ds = docScratch{}
			s.marks[d>>6] &^= 1 << (d & 63)
			continue
		}
		keep = append(keep, d)
	}
	s.touched = keep
	return ub
}

// releaseDocs releases the held documents whose score cannot reach theta
// whatever the unread terms add (the bound of their block) and whose
// block no longer admits them (state), with their examples; the block
// states only tighten, so a released document is never admitted again
// with a partial sum. A document's final context sum is at most its sum
// plus its block's bound, and each of its examples' likewise; it is
// released when neither can lift its weighted semantic factor to theta
// less its other factors and its tag factor. Documents with a flag in
// done are complete and stay. It returns a bound of the released
// documents' relevance (-Inf for none), which the relevance floor must
// allow for.
func (x *Index) releaseDocs(s *scratch, p *scoring.Plan, bq *blockQuery, state []uint8, t *textQuery, theta, zeroOther float64, done uint8) float64 {
	w := p.Weights.Semantic
	per := 0.0
	if len(p.Soft) > 0 {
		per = p.Weights.Tag / float64(len(p.Soft))
	}
	// reach[k] is what the semantic factor of a document must reach, for
	// k = its matched tags, plus len(p.Soft)+1 for an agent with signals:
	// a bound of its score is below theta otherwise. ctxFloor and exFloor
	// are the context and example sums below which it does not.
	n := len(p.Soft) + 1
	s.reach = resize(s.reach, 3*2*n)
	reach, ctxFloor, exFloor := s.reach[:2*n], s.reach[2*n:4*n], s.reach[4*n:]
	for k := range 2 * n {
		other := zeroOther
		if k >= n {
			other = p.Other
		}
		reach[k] = theta - other - per*float64(k%n) - 1e-9
		ctxFloor[k] = x.cfg.ContextFloor(reach[k], w, t.idfSum)
		exFloor[k] = x.cfg.ContextFloor(reach[k], w, t.exIdfSum)
	}
	class := func(d uint32, ds *docScratch) int {
		if x.flags[d]&flagSig != 0 {
			return n + int(ds.tagN)
		}
		return int(ds.tagN)
	}
	for _, d := range s.touched {
		ds := &s.docs[d]
		b := d >> blockShift
		if st := state[b]; st == blockOpen || (st == blockClosedPlain && x.flags[d]&flagSig != 0) || x.flags[d]&done != 0 {
			ds.keep = true
			continue
		}
		ds.keep = ds.acc+bq.ctx[b]*(1+1e-9) >= ctxFloor[class(d, ds)]
	}
	for _, e := range s.exTouched {
		d := x.exDoc[e]
		if ds := &s.docs[d]; !ds.keep {
			ds.keep = s.exAcc[e]+bq.ex[d>>blockShift]*(1+1e-9) >= exFloor[class(d, ds)]
		}
	}
	ub := math.Inf(-1)
	keep := s.touched[:0]
	for _, d := range s.touched {
		ds := &s.docs[d]
		if ds.keep {
			ds.keep = false
			keep = append(keep, d)
			continue
		}
		ub = max(ub, reach[class(d, ds)]+per*float64(ds.tagN))
		*ds = docScratch{}
		s.marks[d>>6] &^= 1 << (d & 63)
	}
	if len(keep) == len(s.touched) {
		return ub
	}
	s.touched, s.sorted = keep, s.sorted[:0]
	s.dropUnheldExamples(x.exDoc)
	return ub
}
