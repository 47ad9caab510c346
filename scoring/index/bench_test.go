package index_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
	"github.com/adpnode/adpnode/scoring/synthetic"
)

// benchN is the corpus size of the search benchmarks; `adpnode bench
// discover --synthetic N` measures larger corpora.
const benchN = 20000

var benchCorpus = sync.OnceValues(func() (*index.Index, *scoring.Naive) {
	g := synthetic.New(1)
	x, _ := index.New(scoring.WithTags(tag.Default()))
	nv, _ := scoring.NewNaive(scoring.WithTags(tag.Default()))
	for i := range benchN {
		d := g.Doc(i)
		_ = x.Upsert(d)
		_ = nv.Upsert(d)
		x.SetSignals(d.ID, g.Signals(d.ID))
		nv.SetSignals(d.ID, g.Signals(d.ID))
	}
	return x, nv
})

// BenchmarkSearch compares the index with the naive scan over the same
// corpus (signals pushed for the agents that have any) and reports the
// speed-up as a metric.
func BenchmarkSearch(b *testing.B) {
	x, nv := benchCorpus()
	g := synthetic.New(1)
	now := g.Now()
	for _, k := range []synthetic.Kind{synthetic.TagOnly, synthetic.TextOnly, synthetic.Mixed} {
		var indexNs float64
		b.Run(fmt.Sprintf("%v/index", k), func(b *testing.B) {
			i := 0
			for b.Loop() {
				x.Search(g.Query(k, i%200), nil, now)
				i++
			}
			indexNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		b.Run(fmt.Sprintf("%v/naive", k), func(b *testing.B) {
			i := 0
			for b.Loop() {
				nv.Search(g.Query(k, i%200), nil, now)
				i++
			}
			if indexNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/indexNs, "x-vs-index")
			}
		})
	}
}

// syntheticDocs returns n synthetic cards (seed 2).
func syntheticDocs(n int) []scoring.Doc {
	g := synthetic.New(2)
	docs := make([]scoring.Doc, n)
	for i := range docs {
		docs[i] = g.Doc(i)
	}
	return docs
}

func BenchmarkUpsert(b *testing.B) {
	docs := syntheticDocs(4096)
	x, _ := index.New(scoring.WithTags(tag.Default()))
	i := 0
	for b.Loop() {
		d := docs[i%len(docs)]
		d.ID = fmt.Sprint(i) // always a new agent
		_ = x.Upsert(d)
		i++
	}
}

// BenchmarkAnalyzeDoc measures the analysis of a card alone, the part
// of an upsert that runs outside the index's lock.
func BenchmarkAnalyzeDoc(b *testing.B) {
	docs := syntheticDocs(4096)
	m, _ := scoring.NewModel(scoring.WithTags(tag.Default()))
	tc := scoring.NewTermCounts()
	i := 0
	for b.Loop() {
		m.AnalyzeDoc(&docs[i%len(docs)], tc)
		i++
	}
}
