package index

import "github.com/adpnode/adpnode/scoring"

// nBuckets is the number of relevance buckets candidates are sorted into
// before exact scoring.
const nBuckets = 1024

// cand is a candidate that passed the filters.
type cand struct {
	doc          uint32
	rel          float64 // weighted tag + semantic part of the score
	bound        float64 // upper bound of the whole score
	tag, ctx, ex float64
}

// docScratch is the per-query state of one document, kept together so
// that a posting touches one cache line.
type docScratch struct {
	acc    float64 // BM25F sum
	exBest float64 // best normalized example score
	tagN   uint8   // matched query tags
	seeded bool    // preTheta: tried already
	keep   bool    // releaseDocs: the document may still reach theta
}

// scratch holds the per-query accumulators, reused through a pool and
// left zeroed between queries (only touched entries are reset).
type scratch struct {
	docs      []docScratch // per document
	marks     []uint64     // bit per document: in touched (dense and small, so that pruned postings test it cheaply)
	exAcc     []float64    // per example: BM25 sum
	touched   []uint32
	sorted    []uint32  // lookup: touched in ascending order
	shared    []uint32  // preTheta: sharedDocs
	done      []seedDoc // preTheta: documents whose final relevance is computed
	sigs      []sigDoc  // preTheta, releaseSignals: the agents with signals
	cursors   []int     // finalRelevances: per term, into the context and example postings
	exTouched []uint32
	reach     []float64 // releaseDocs: thresholds by tag matches and signals
	cands     []cand
	order     []int32
	blocks    blockQuery
	starts    [nBuckets + 1]int32
	// planTerms: the query's terms, the fields' length pivots and their
	// normalization table, overwritten by every query.
	terms []scoring.Term
	avg   [scoring.NumFields]float64
	norms scoring.NormTable
}

func (x *Index) getScratch() *scratch {
	s, _ := x.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if n := len(x.ids); len(s.docs) < n {
		s.docs = make([]docScratch, n+n/8)
	}
	if n := (len(x.ids) + 63) / 64; len(s.marks) < n {
		s.marks = make([]uint64, n+n/8)
	}
	if n := len(x.exDoc); len(s.exAcc) < n {
		s.exAcc = make([]float64, n+n/8)
	}
	return s
}

func (x *Index) putScratch(s *scratch) {
	for _, d := range s.touched {
		s.docs[d] = docScratch{}
		s.marks[d>>6] = 0
	}
	for _, e := range s.exTouched {
		s.exAcc[e] = 0
	}
	s.touched, s.sorted, s.exTouched, s.cands, s.order = s.touched[:0], s.sorted[:0], s.exTouched[:0], s.cands[:0], s.order[:0]
	x.pool.Put(s)
}

func (s *scratch) touch(d uint32) {
	if w, b := &s.marks[d>>6], uint64(1)<<(d&63); *w&b == 0 {
		*w |= b
		s.touched = append(s.touched, d)
	}
}

// dropUnheld removes from touched the documents whose mark was cleared
// (their entries already zeroed), and their examples.
func (s *scratch) dropUnheld(exDoc []uint32) {
	keep := s.touched[:0]
	for _, d := range s.touched {
		if s.held(d) {
			keep = append(keep, d)
		}
	}
	if len(keep) == len(s.touched) {
		return
	}
	s.touched, s.sorted = keep, s.sorted[:0]
	s.dropUnheldExamples(exDoc)
}

// dropUnheldExamples removes from exTouched, zeroed, the examples of
// documents no longer held.
func (s *scratch) dropUnheldExamples(exDoc []uint32) {
	keep := s.exTouched[:0]
	for _, e := range s.exTouched {
		if s.held(exDoc[e]) {
			keep = append(keep, e)
		} else {
			s.exAcc[e] = 0
		}
	}
	s.exTouched = keep
}

// held reports whether d is in touched.
func (s *scratch) held(d uint32) bool { return s.marks[d>>6]&(1<<(d&63)) != 0 }

func bucketOf(rel float64) int {
	b := int(rel * nBuckets)
	return min(max(b, 0), nBuckets-1)
}

// bucketSort orders the candidates by score-bound bucket (counting sort):
// s.order[s.starts[b]:s.starts[b+1]] are the candidates of bucket b.
func (s *scratch) bucketSort() {
	s.starts = [nBuckets + 1]int32{}
	for i := range s.cands {
		s.starts[bucketOf(s.cands[i].bound)+1]++
	}
	for b := 1; b <= nBuckets; b++ {
		s.starts[b] += s.starts[b-1]
	}
	if cap(s.order) < len(s.cands) {
		s.order = make([]int32, len(s.cands))
	}
	s.order = s.order[:len(s.cands)]
	var next [nBuckets]int32
	copy(next[:], s.starts[:nBuckets])
	for i := range s.cands {
		b := bucketOf(s.cands[i].bound)
		s.order[next[b]] = int32(i)
		next[b]++
	}
}
