package scoring

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// Naive scores every live document for every query: the baseline the
// Index is measured and tested against. It keeps a forward index (sorted
// term numbers and packed term frequencies per document) and the same
// collection statistics as Index, so for the same documents (after
// Index.Compact) both return the same hits with the same scores.
//
// Naive is safe for concurrent use.
type Naive struct {
	cfg *Model

	mu       sync.RWMutex
	terms    map[string]uint32
	df, exdf []int
	docs     map[string]*naiveDoc
	order    []string // ids in insertion order, for deterministic scans
	lens     LengthSums
	exLive   int
	sig      map[string]Signals

	tcPool sync.Pool // *TermCounts for AnalyzeDoc
}

type naiveDoc struct {
	id        string
	terms     []uint32 // sorted
	tfs       []uint16
	lens      [NumFields]uint16
	examples  []naiveExample // examples, then nTool tools
	nTool     int
	tags      []DocTag
	protos    []string
	maxConc   int32
	status    uint8
	updated   int64
	indexed   int64
	expires   int64
	insertion int
}

type naiveExample struct {
	terms []uint32 // sorted
	tfs   []uint8
	n     uint16
}

// NewNaive returns an empty naive scorer.
func NewNaive(opts ...Option) (*Naive, error) {
	cfg, err := NewModel(opts...)
	if err != nil {
		return nil, err
	}
	return &Naive{cfg: cfg, terms: make(map[string]uint32), docs: make(map[string]*naiveDoc), sig: make(map[string]Signals)}, nil
}

// SetSignals records signals for an agent, as Index.SetSignals.
func (n *Naive) SetSignals(id string, s Signals) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s.IsZero() {
		delete(n.sig, id)
	} else {
		n.sig[id] = s
	}
}

// Len returns the number of documents.
func (n *Naive) Len() int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.docs)
}

// Upsert adds or replaces d; a revoked document is deleted.
func (n *Naive) Upsert(d Doc) error {
	if d.ID == "" {
		return ErrNoID
	}
	if d.Revoked {
		n.Delete(d.ID)
		return nil
	}
	tc, _ := n.tcPool.Get().(*TermCounts)
	if tc == nil {
		tc = NewTermCounts()
	}
	dt := n.cfg.AnalyzeDoc(&d, tc)
	defer n.tcPool.Put(tc) // after the terms are copied: dt's terms are tc's
	n.mu.Lock()
	defer n.mu.Unlock()
	n.remove(d.ID)
	nd := &naiveDoc{
		id: d.ID, lens: dt.Lens, tags: dt.Tags, protos: dt.Protos,
		maxConc: int32(min(max(d.MaxConcurrent, 0), 1<<30)), status: ParseStatus(d.Status),
		updated: UnixNano(d.UpdatedAt), indexed: UnixNano(d.IndexedAt), expires: UnixNano(d.ExpiresAt),
		insertion: len(n.order), nTool: dt.Tools,
	}
	type pair struct {
		t  uint32
		tf uint16
	}
	ps := make([]pair, len(dt.Terms))
	for i, t := range dt.Terms {
		ps[i] = pair{n.term(t.Term), t.TF}
		n.df[ps[i].t]++
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].t < ps[j].t })
	for _, p := range ps {
		nd.terms = append(nd.terms, p.t)
		nd.tfs = append(nd.tfs, p.tf)
	}
	n.lens.AddDoc(dt.Lens[:], 1)
	for _, ex := range dt.Examples {
		type epair struct {
			t  uint32
			tf uint8
		}
		eps := make([]epair, len(ex.Terms))
		for j, t := range ex.Terms {
			eps[j] = epair{n.term(t), ex.TFs[j]}
			n.exdf[eps[j].t]++
		}
		sort.Slice(eps, func(i, j int) bool { return eps[i].t < eps[j].t })
		ne := naiveExample{n: ex.N}
		for _, p := range eps {
			ne.terms = append(ne.terms, p.t)
			ne.tfs = append(ne.tfs, p.tf)
		}
		nd.examples = append(nd.examples, ne)
		n.lens.AddExample(ex.N, 1)
	}
	n.exLive += len(dt.Examples)
	n.docs[d.ID] = nd
	n.order = append(n.order, d.ID)
	return nil
}

// Delete removes the document with this ID.
func (n *Naive) Delete(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.remove(id)
}

func (n *Naive) remove(id string) bool {
	nd, ok := n.docs[id]
	if !ok {
		return false
	}
	delete(n.docs, id)
	n.order[nd.insertion] = ""
	for _, t := range nd.terms {
		n.df[t]--
	}
	n.lens.AddDoc(nd.lens[:], -1)
	for _, ex := range nd.examples {
		for _, t := range ex.terms {
			n.exdf[t]--
		}
		n.lens.AddExample(ex.n, -1)
	}
	n.exLive -= len(nd.examples)
	return true
}

func (n *Naive) term(t string) uint32 {
	tn, ok := n.terms[t]
	if !ok {
		tn = uint32(len(n.df))
		n.terms[strings.Clone(t)] = tn
		n.df = append(n.df, 0)
		n.exdf = append(n.exdf, 0)
	}
	return tn
}

type naiveCand struct {
	d                 *naiveDoc
	rel, tag, ctx, ex float64
	matched, expanded []string
	examples          []ExampleMatch
}

// Search scores every document for q.
func (n *Naive) Search(q Query, signals SignalFunc, now time.Time) Result {
	p := n.cfg.Prepare(q)
	res := Result{Weights: p.Weights, Warnings: p.Warnings, RelevanceFloor: p.Floor}
	n.mu.RLock()
	defer n.mu.RUnlock()
	live := len(n.docs)
	mean, avg, exAvg := n.cfg.LengthStats(&n.lens, live, n.exLive)
	norms := n.cfg.Norms(&mean, &avg)
	qts := make([]Term, len(p.Terms))
	for i, t := range p.Terms {
		qt := Term{Text: t}
		if tn, ok := n.terms[t]; ok {
			qt.DF, qt.ExDF = n.df[tn], n.exdf[tn]
		}
		qt.IDF, qt.ExIDF = n.cfg.TermWeights(live, qt.DF, n.exLive, qt.ExDF, p.QTF[i])
		qts[i] = qt
	}
	qts, warn := SelectTerms(qts)
	res.Warnings = append(res.Warnings, warn...)
	idfSum, exIdfSum := SortTerms(qts)
	tids := make([]int64, len(qts)) // -1: not in the vocabulary
	idfs := make([]float64, len(qts))
	exIdfs := make([]float64, len(qts))
	for i, qt := range qts {
		tids[i] = -1
		if tn, ok := n.terms[qt.Text]; ok {
			tids[i] = int64(tn)
		}
		idfs[i], exIdfs[i] = qt.IDF, qt.ExIDF
	}
	nowNs := now.UnixNano()
	var cands []naiveCand
	bestRel := 0.0
	for _, id := range n.order {
		if id == "" {
			continue
		}
		d := n.docs[id]
		if !n.pass(d, p, nowNs) {
			continue
		}
		nm, ne := TagEvidence(n.cfg.tags, p.Soft, d.tags)
		tagF := 0.0
		if len(p.Soft) > 0 {
			tagF = float64(len(nm)+len(ne)) / float64(len(p.Soft))
		}
		acc := 0.0
		for i, tn := range tids {
			if tn < 0 {
				continue
			}
			j := sort.Search(len(d.terms), func(k int) bool { return d.terms[k] >= uint32(tn) })
			if j == len(d.terms) || d.terms[j] != uint32(tn) {
				continue
			}
			if tf := n.cfg.PseudoTF(d.tfs[j], d.lens[:], &avg, norms); tf != 0 {
				acc += idfs[i] * n.cfg.Saturate(tf)
			}
		}
		ctx := n.cfg.ContextScore(acc, idfSum)
		best := 0.0
		var exm []ExampleMatch
		for e, ex := range d.examples {
			ea := 0.0
			for i, tn := range tids {
				if tn < 0 {
					continue
				}
				j := sort.Search(len(ex.terms), func(k int) bool { return ex.terms[k] >= uint32(tn) })
				if j < len(ex.terms) && ex.terms[j] == uint32(tn) {
					ea += exIdfs[i] * n.cfg.Saturate(n.cfg.ExampleTF(ex.tfs[j], ex.n, exAvg))
				}
			}
			if ea > 0 {
				v := n.cfg.ExampleScore(ea, exIdfSum)
				best = max(best, v)
				exm = append(exm, PassageMatch(e, len(d.examples), d.nTool, v))
			}
		}
		if !p.FilterOnly && tagF == 0 && max(ctx, best) == 0 {
			continue
		}
		rel := p.Weights.Tag*tagF + p.Weights.Semantic*max(ctx, best)
		bestRel = max(bestRel, rel)
		cands = append(cands, naiveCand{d: d, rel: rel, tag: tagF, ctx: ctx, ex: best, matched: nm, expanded: ne, examples: exm})
	}
	var hits []Hit
	for _, c := range cands {
		if c.rel < p.Floor*bestRel {
			continue
		}
		res.Candidates++
		d := c.d
		sig := n.sig[d.id]
		if signals != nil {
			sig = signals(d.id)
		}
		if Overloaded(sig, d.maxConc) {
			continue
		}
		res.Scored++
		comp := Components{
			Tag: c.tag, Context: c.ctx, Example: c.ex,
			Reputation:   n.cfg.Reputation(sig),
			Availability: n.cfg.Availability(sig, d.maxConc, d.status, now),
			Rating:       Rating(sig),
			Freshness:    Freshness(d.indexed, d.expires, nowNs),
		}
		hw := HitWeights(p.Weights, c.ctx, c.ex)
		score := comp.Dot(hw)
		if score < p.MinScore {
			continue
		}
		hits = append(hits, Hit{ID: d.id, Score: score, Components: comp, Weights: hw,
			MatchedTags: c.matched, ExpandedTags: c.expanded, Examples: SortExamples(c.examples),
			Stale: d.expires != 0 && nowNs >= d.expires})
	}
	sort.Slice(hits, func(i, j int) bool { return Better(hits[i].Score, hits[i].ID, hits[j].Score, hits[j].ID) })
	if len(hits) > p.Limit {
		hits = hits[:p.Limit]
	}
	res.Hits = hits
	return res
}

func (n *Naive) pass(d *naiveDoc, p *Plan, now int64) bool {
	if d.expires != 0 && now >= d.expires && !p.AllowStale {
		return false
	}
	if p.MaxAge > 0 {
		at := d.indexed
		if at == 0 {
			at = d.updated
		}
		if at == 0 || now-at > int64(p.MaxAge) {
			return false
		}
	}
	if _, ok := p.Exclude[d.id]; ok {
		return false
	}
	if len(p.Protocols) > 0 && !AnyIn(d.protos, p.Protocols) {
		return false
	}
	has := func(q string) bool {
		for _, t := range d.tags {
			if n.cfg.tags.Covers(q, t.Canon) {
				return true
			}
		}
		return false
	}
	for _, r := range p.Required {
		if !has(r) {
			return false
		}
	}
	for _, e := range p.Excluded {
		if has(e) {
			return false
		}
	}
	return true
}
