package index_test

import (
	"math"
	"sync"
	"testing"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
	"github.com/adpnode/adpnode/scoring/synthetic"
)

// Searches run while documents and signals change; run with -race.
func TestConcurrentUse(t *testing.T) {
	g := synthetic.New(11)
	x, err := index.New(scoring.WithTags(tag.Default()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if err := x.Upsert(g.Doc(i)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 2 {
		wg.Go(func() {
			for i := range 300 {
				d := g.Doc(500 + w*300 + i)
				if err := x.Upsert(d); err != nil {
					errs <- err.Error()
					return
				}
				x.SetSignals(d.ID, g.Signals(d.ID))
				if i%3 == 0 {
					x.Delete(g.ID(i))
				}
			}
		})
	}
	for w := range 2 {
		wg.Go(func() {
			for i := range 150 {
				r := x.Search(g.Query(synthetic.Kind(i%3), w*150+i), nil, g.Now())
				for _, h := range r.Hits {
					if math.Abs(h.Components.Dot(h.Weights)-h.Score) > 1e-9 {
						errs <- "evidence does not add up"
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if x.Len() == 0 {
		t.Fatal("index emptied")
	}
}

// Hostile queries never panic and always produce consistent evidence.
func FuzzSearch(f *testing.F) {
	g := synthetic.New(5)
	x, err := index.New(scoring.WithTags(tag.Default()))
	if err != nil {
		f.Fatal(err)
	}
	for i := range 300 {
		_ = x.Upsert(g.Doc(i))
	}
	f.Add("translate finance documents", "nlp/*", "py", "vision", "aitp", 10, 0.1)
	f.Add("", "", "", "", "", 0, -1.0)
	f.Add("\xff\xfe ÉTÉ \u0000 ///", "/*", "*", "//", "HTTPS", -5, 2.0)
	f.Fuzz(func(t *testing.T, text, tag, req, excl, proto string, limit int, minScore float64) {
		q := scoring.Query{Text: text, Tags: []string{tag}, RequiredTags: []string{req}, ExcludedTags: []string{excl},
			Protocols: []string{proto}, Limit: limit, MinScore: minScore}
		if req == "" {
			q.RequiredTags = nil
		}
		r := x.Search(q, nil, g.Now())
		want := min(limit, scoring.MaxLimit)
		if limit <= 0 {
			want = scoring.DefaultLimit
		}
		if len(r.Hits) > want {
			t.Fatalf("%d hits for limit %d", len(r.Hits), limit)
		}
		for _, h := range r.Hits {
			if math.Abs(h.Components.Dot(h.Weights)-h.Score) > 1e-9 || math.IsNaN(h.Score) {
				t.Fatalf("hit %+v: evidence does not add up", h)
			}
		}
		_ = x.Tags().Normalize(tag)
	})
}
