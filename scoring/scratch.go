package scoring

// nBuckets is the number of relevance buckets candidates are sorted into
// before exact scoring.
const nBuckets = 1024

// cand is a candidate that passed the filters.
type cand struct {
	doc          uint32
	rel          float64 // weighted tag + semantic part of the score
	tag, ctx, ex float64
}

// scratch holds the per-query accumulators, reused through a pool and
// left zeroed between queries (only touched entries are reset).
type scratch struct {
	acc       []float64 // per document: BM25F sum
	exBest    []float64 // per document: best normalized example score
	tagN      []uint8   // per document: matched query tags
	mark      []bool    // per document: in touched
	exAcc     []float64 // per example: BM25 sum
	touched   []uint32
	exTouched []uint32
	cands     []cand
	order     []int32
	starts    [nBuckets + 1]int32
}

func (x *Index) getScratch() *scratch {
	s, _ := x.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if n := len(x.ids); len(s.acc) < n {
		n += n / 8
		s.acc = make([]float64, n)
		s.exBest = make([]float64, n)
		s.tagN = make([]uint8, n)
		s.mark = make([]bool, n)
	}
	if n := len(x.exDoc); len(s.exAcc) < n {
		s.exAcc = make([]float64, n+n/8)
	}
	return s
}

func (x *Index) putScratch(s *scratch) {
	for _, d := range s.touched {
		s.acc[d], s.exBest[d], s.tagN[d], s.mark[d] = 0, 0, 0, false
	}
	for _, e := range s.exTouched {
		s.exAcc[e] = 0
	}
	s.touched, s.exTouched, s.cands, s.order = s.touched[:0], s.exTouched[:0], s.cands[:0], s.order[:0]
	x.pool.Put(s)
}

func (s *scratch) touch(d uint32) {
	if !s.mark[d] {
		s.mark[d] = true
		s.touched = append(s.touched, d)
	}
}

func bucketOf(rel float64) int {
	b := int(rel * nBuckets)
	return min(max(b, 0), nBuckets-1)
}

// bucketSort orders the candidates by relevance bucket (counting sort):
// s.order[s.starts[b]:s.starts[b+1]] are the candidates of bucket b.
func (s *scratch) bucketSort() {
	s.starts = [nBuckets + 1]int32{}
	for i := range s.cands {
		s.starts[bucketOf(s.cands[i].rel)+1]++
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
		b := bucketOf(s.cands[i].rel)
		s.order[next[b]] = int32(i)
		next[b]++
	}
}
