package bench

import (
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/eval"
	"github.com/adpnode/adpnode/scoring/index"
	"github.com/adpnode/adpnode/scoring/synthetic"
)

// kinds are the query families measured, in the order reported.
var kinds = []synthetic.Kind{synthetic.TagOnly, synthetic.TextOnly, synthetic.Mixed}

// Latencies are wall-clock percentiles and, where the OS tells, the
// percentiles of the CPU time the measuring thread spent, which other
// processes on a loaded machine do not inflate.
type Latencies struct{ P50, P99, CPU50, CPU99 time.Duration }

// Synthetic measures the index on a generated corpus: Build, then
// MeasureIndex, then optionally CompareNaive (which frees the index).
type Synthetic struct {
	n    int
	opts Options
	g    *synthetic.Generator
	now  time.Time
	idx  *index.Index
	tops map[synthetic.Kind][][]string // index top 10s CompareNaive checks
}

// NewSynthetic returns a benchmark over a corpus of n agents generated
// from seed.
func NewSynthetic(n int, seed uint64, o Options) *Synthetic {
	g := synthetic.New(seed)
	return &Synthetic{n: n, opts: o, g: g, now: g.Now()}
}

// Build is what building the index cost.
type Build struct {
	// Took is the build time, corpus generation included.
	Took time.Duration
	// UpsertMeanMicros, UpsertP50 and UpsertP99 are wall-clock upsert
	// latencies; UpsertCPU50 and UpsertCPU99 the thread CPU time of every
	// 100th.
	UpsertMeanMicros                              float64
	UpsertP50, UpsertP99                          time.Duration
	UpsertCPU50, UpsertCPU99                      time.Duration
	WithSignals                                   int    // agents with interaction records
	HeapBytes                                     uint64 // heap growth after GC
	Terms, Postings, ExamplePostings, TagPostings int
}

// Build generates the corpus, indexes it and pushes the agents' signals.
func (s *Synthetic) Build() (*Build, error) {
	n, g := s.n, s.g
	ups := make([]time.Duration, n)
	upsCPU := make([]time.Duration, 0, n/100+1) // every 100th upsert, thread CPU time
	before := heapAlloc()
	idx, err := index.New(s.opts.scoringOptions()...)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	start := time.Now()
	for i := range n {
		d := g.Doc(i)
		var c0 time.Duration
		if i%100 == 0 {
			c0 = eval.ThreadCPU()
		}
		t := time.Now()
		if err := idx.Upsert(d); err != nil {
			runtime.UnlockOSThread()
			return nil, err
		}
		ups[i] = time.Since(t)
		if i%100 == 0 {
			if c1 := eval.ThreadCPU(); c0 >= 0 && c1 >= 0 {
				upsCPU = append(upsCPU, c1-c0)
			}
		}
	}
	b := &Build{Took: time.Since(start)}
	runtime.UnlockOSThread()
	b.HeapBytes = heapAlloc() - before
	for i := range n { // this node's interaction records, a small share of the agents
		id := g.ID(i)
		if sig := g.Signals(id); sig != (scoring.Signals{}) {
			idx.SetSignals(id, sig)
			b.WithSignals++
		}
	}
	var sum time.Duration
	for _, u := range ups {
		sum += u
	}
	b.UpsertMeanMicros = float64(sum.Nanoseconds()) / float64(n) / 1e3
	b.UpsertP50, b.UpsertP99 = eval.Percentile(ups, 50), eval.Percentile(ups, 99)
	b.UpsertCPU50, b.UpsertCPU99 = eval.Percentile(upsCPU, 50), eval.Percentile(upsCPU, 99)
	st := idx.Stats()
	b.Terms, b.Postings, b.ExamplePostings, b.TagPostings = st.Terms, st.Postings, st.ExamplePostings, st.TagPostings
	s.idx = idx
	return b, nil
}

// Family is the measurement of one query family.
type Family struct {
	Name  string // tag-only, text-only or mixed
	Index Latencies
	Naive Latencies // set by CompareNaive
}

// MeasureIndex runs perKind queries of each family against the index
// built by Build, keeping the top results of the first keep for
// CompareNaive. With profile non-nil the queries run under a CPU profile
// written there.
func (s *Synthetic) MeasureIndex(perKind, keep int, profile io.Writer) ([]Family, error) {
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return nil, err
		}
	}
	s.tops = make(map[synthetic.Kind][][]string)
	out := make([]Family, 0, len(kinds))
	for _, k := range kinds {
		tops := make([][]string, keep)
		lat := measure(perKind, func(i int) {
			res := s.idx.Search(s.g.Query(k, i), nil, s.now)
			if i < len(tops) {
				tops[i] = hitIDs(res.Hits)
			}
		})
		s.tops[k] = tops
		out = append(out, Family{Name: k.String(), Index: lat})
	}
	if profile != nil {
		pprof.StopCPUProfile()
	}
	return out, nil
}

// Naive is the naive scan's measurement beside the index's.
type Naive struct {
	// Took is the naive corpus build time.
	Took time.Duration
	// Agree of Compared queries have the same top results as the index.
	Agree, Compared int
}

// CompareNaive frees the index, builds a naive scan over the same corpus
// and signals, measures perKind queries of each family against it (into
// fams[i].Naive) and compares its results with the index's top results
// that MeasureIndex kept.
func (s *Synthetic) CompareNaive(perKind int, fams []Family) (*Naive, error) {
	s.idx = nil
	runtime.GC()
	nv, err := scoring.NewNaive(s.opts.scoringOptions()...)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for i := range s.n {
		d := s.g.Doc(i)
		if err := nv.Upsert(d); err != nil {
			return nil, err
		}
		if sig := s.g.Signals(d.ID); sig != (scoring.Signals{}) {
			nv.SetSignals(d.ID, sig)
		}
	}
	res := &Naive{Took: time.Since(start)}
	for i, k := range kinds {
		fams[i].Naive = measure(perKind, func(j int) { nv.Search(s.g.Query(k, j), nil, s.now) })
		for j, top := range s.tops[k] {
			res.Compared++
			if slices.Equal(hitIDs(nv.Search(s.g.Query(k, j), nil, s.now).Hits), top) {
				res.Agree++
			}
		}
	}
	return res, nil
}

func measure(n int, fn func(i int)) Latencies {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range min(n, 10) { // warm-up
		fn(i)
	}
	d := make([]time.Duration, n)
	cpu := make([]time.Duration, 0, n)
	for i := range n {
		c0 := eval.ThreadCPU()
		t := time.Now()
		fn(i)
		d[i] = time.Since(t)
		if c1 := eval.ThreadCPU(); c0 >= 0 && c1 >= 0 {
			cpu = append(cpu, c1-c0)
		}
	}
	return Latencies{eval.Percentile(d, 50), eval.Percentile(d, 99), eval.Percentile(cpu, 50), eval.Percentile(cpu, 99)}
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func hitIDs(hs []scoring.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// LoadAvg reports the machine load, which matters on a shared machine.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load " + strings.Join(f[:3], " ")
}
