package index

import "github.com/adpnode/adpnode/scoring"

func (x *Index) kill(n uint32) {
	m := &x.meta[n]
	if !m.alive {
		return
	}
	m.alive = false
	x.flags[n] = 0
	delete(x.byID, x.ids[n])
	delete(x.protoOut, n)
	delete(x.docSig, n)
	x.ids[n] = ""
	x.dtags[n] = nil
	x.lenSums.AddDoc(x.lens[int(n)*scoring.NumFields:], -1)
	for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
		x.lenSums.AddExample(x.exLen[e], -1)
	}
	x.exLive -= int(m.nEx)
	x.live--
	x.dead++
}

func (x *Index) maybeCompact() {
	if x.dead >= 1024 && float64(x.dead) >= x.cfg.CompactRatio()*float64(x.live) {
		x.compact()
	}
}

// gone marks a dead document or example in compact's renumbering maps.
const gone = ^uint32(0)

// compact drops dead documents, their examples and postings, renumbers
// documents, examples and terms, and forgets terms and tags no live
// document uses.
func (x *Index) compact() {
	if x.dead == 0 {
		return
	}
	docMap := make([]uint32, len(x.ids))
	exMap := make([]uint32, len(x.exDoc))
	nd := 0
	ne := 0
	for d := range x.ids {
		m := x.meta[d]
		if !m.alive {
			docMap[d] = gone
			for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
				exMap[e] = gone
			}
			continue
		}
		docMap[d] = uint32(nd)
		for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
			exMap[e] = uint32(ne)
			ne++
		}
		nd++
	}
	ids := make([]string, 0, nd)
	meta := make([]docMeta, 0, nd)
	lens := make([]uint16, 0, nd*scoring.NumFields)
	dtags := make([][]uint32, 0, nd)
	exDoc := make([]uint32, 0, ne)
	exLen := make([]uint16, 0, ne)
	protoOut := make(map[uint32][]string, len(x.protoOut))
	docSig := make(map[uint32]scoring.Signals, len(x.docSig))
	for d := range x.ids {
		if docMap[d] == gone {
			continue
		}
		m := x.meta[d]
		nn := docMap[d]
		if m.nEx > 0 {
			start := uint32(len(exDoc))
			for e := m.exStart; e < m.exStart+uint32(m.nEx); e++ {
				exDoc = append(exDoc, nn)
				exLen = append(exLen, x.exLen[e])
			}
			m.exStart = start
		} else {
			m.exStart = uint32(len(exDoc))
		}
		if po, ok := x.protoOut[uint32(d)]; ok {
			protoOut[nn] = po
		}
		if sig, ok := x.docSig[uint32(d)]; ok {
			docSig[nn] = sig
		}
		ids = append(ids, x.ids[d])
		x.byID[x.ids[d]] = nn
		meta = append(meta, m)
		lens = append(lens, x.lens[d*scoring.NumFields:(d+1)*scoring.NumFields]...)
		dtags = append(dtags, x.dtags[d])
	}
	x.ids, x.meta, x.lens, x.dtags = ids, meta, lens, dtags
	x.flags = make([]uint8, len(ids))
	for i, m := range meta {
		x.flags[i] = flagAlive
		if m.hasSig {
			x.flags[i] |= flagSig
		}
	}
	x.exDoc, x.exLen = exDoc, exLen
	x.protoOut, x.docSig = protoOut, docSig
	x.dead = 0
	x.compactPostings(docMap, exMap)
	// Scratch buffers in the pool are sized for the old arrays; they are
	// only ever grown, so stale ones remain usable.
}

// compactPostings renumbers the term and tag postings after compact
// renumbered the documents (docMap) and examples (exMap), drops those of
// dead ones, forgets terms no live document uses and rebuilds the block
// bounds, which are then exact for the new numbering. The term bounds
// stay as they were: still upper bounds.
func (x *Index) compactPostings(docMap, exMap []uint32) {
	terms := make(map[string]uint32, len(x.terms))
	post := make([]postings, 0, len(x.post))
	for t, tn := range x.terms {
		p := x.post[tn]
		np := postings{bound: p.bound} // still an upper bound
		for i, d := range p.docs {
			if nn := docMap[d]; nn != gone {
				np.docs = append(np.docs, nn)
				np.tfs = append(np.tfs, p.tfs[i])
			}
		}
		for i, e := range p.ex {
			if ne := exMap[e]; ne != gone {
				np.ex = append(np.ex, ne)
				np.extf = append(np.extf, p.extf[i])
				np.exDocs = append(np.exDocs, docMap[p.exDocs[i]])
			}
		}
		if len(np.docs) == 0 && len(np.ex) == 0 {
			continue
		}
		terms[t] = uint32(len(post))
		post = append(post, np)
	}
	for i := range x.canons {
		c := &x.canons[i]
		kept := c.docs[:0]
		for _, d := range c.docs {
			if nn := docMap[d]; nn != gone {
				kept = append(kept, nn)
			}
		}
		c.docs = kept
	}
	x.terms, x.post = terms, post
	for i := range x.post {
		x.post[i].blocks = nil
		x.maybeBuildBlocks(&x.post[i])
	}
}
