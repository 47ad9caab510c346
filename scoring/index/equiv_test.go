package index_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
	"github.com/adpnode/adpnode/scoring/index"
	"github.com/adpnode/adpnode/scoring/synthetic"
)

// The index returns exactly what the naive scan returns, on a random
// corpus with updates, deletions, signals and every query family.
func TestIndexEqualsNaive(t *testing.T) {
	g := synthetic.New(7)
	const n = 3000
	x, err := index.New(scoring.WithTags(tag.Default()), scoring.WithCompactRatio(1e9)) // compaction only when asked
	if err != nil {
		t.Fatal(err)
	}
	nv, err := scoring.NewNaive(scoring.WithTags(tag.Default()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		d := g.Doc(i)
		if err := x.Upsert(d); err != nil {
			t.Fatal(err)
		}
		if err := nv.Upsert(d); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 600 { // replace some documents by others' content, delete some
		i := r.IntN(n)
		d := g.Doc(r.IntN(n))
		d.ID = g.Doc(i).ID
		if r.IntN(3) == 0 {
			x.Delete(d.ID)
			nv.Delete(d.ID)
			continue
		}
		if err := x.Upsert(d); err != nil {
			t.Fatal(err)
		}
		if err := nv.Upsert(d); err != nil {
			t.Fatal(err)
		}
	}
	// Signals: pushed for some agents, and some pushed then forgotten.
	for i := range n {
		id := g.ID(i)
		s := g.Signals(id)
		if i%7 == 0 {
			s = scoring.Signals{Calls: i % 5, Successes: i % 3, CompletedTasks: i % 9, RatingCount: 1, RatingSum: 1 + i%5,
				LastSeen: g.Now().Add(-time.Duration(i%20) * time.Minute), ActiveTasks: i % 6}
		}
		x.SetSignals(id, s)
		nv.SetSignals(id, s)
		if i%13 == 0 {
			x.SetSignals(id, scoring.Signals{})
			nv.SetSignals(id, scoring.Signals{})
		}
	}
	x.Compact() // until then idf counts dead documents, the naive scan does not
	if x.Len() != nv.Len() {
		t.Fatalf("Len index %d naive %d", x.Len(), nv.Len())
	}
	now := g.Now()
	checked, pruned, skipped, released, excluded := 0, 0, 0, 0, 0
	compare := func() {
		for kind := synthetic.TagOnly; kind <= synthetic.Mixed; kind++ {
			for i := range 60 {
				q := g.Query(kind, i)
				switch i % 5 {
				case 1:
					q.Limit = 50
				case 2:
					q.Protocols = []string{"mcp"}
				case 3:
					q.ExcludedTags = []string{"vision"}
					q.PreferredTags = []string{"coding/*"}
				case 4:
					q.MinScore = 0.5
				}
				var sig scoring.SignalFunc // pushed signals, or pulled ones for half the queries
				if i%2 == 1 {
					sig = g.Signals
				}
				if i%3 == 0 { // a caller excludes the best hits it holds, and one other agent
					before := nv.Search(q, sig, now).Hits
					q.Exclude = map[string]struct{}{g.ID(i): {}}
					for _, h := range before[:min(5, len(before))] {
						q.Exclude[h.ID] = struct{}{}
					}
					excluded += len(before[:min(5, len(before))])
				}
				got := x.Search(q, sig, now)
				want := nv.Search(q, sig, now)
				sameHits(t, got.Hits, want.Hits)
				for _, h := range got.Hits {
					if _, ok := q.Exclude[h.ID]; ok {
						t.Fatalf("%v query %d: excluded %s returned", kind, i, h.ID)
					}
				}
				checkEvidence(t, got)
				if got.Candidates > want.Candidates {
					t.Fatalf("%v query %d: candidates index %d > naive %d", kind, i, got.Candidates, want.Candidates)
				}
				if got.Scored > want.Scored {
					t.Fatalf("index scored %d > naive %d", got.Scored, want.Scored)
				}
				checked += len(got.Hits)
				if got.Scored < want.Scored {
					pruned++
				}
				if got.Skipped > 0 {
					skipped++
				}
				if got.Released > 0 {
					released++
				}
			}
		}
	}
	compare()
	if pruned == 0 {
		t.Fatal("no query scored fewer candidates than the scan: pruning never engaged")
	}
	if skipped == 0 {
		t.Fatal("no query skipped postings: max-score pruning never engaged")
	}
	if released == 0 {
		t.Fatal("no query released tag matches before reading its terms")
	}
	if excluded < 100 {
		t.Fatalf("only %d hits excluded: the exclusion is not exercised", excluded)
	}
	t.Logf("%d hits compared; %d queries scored fewer candidates, %d skipped postings, %d released tag matches", checked, pruned, skipped, released)
	if checked < 500 {
		t.Fatalf("only %d hits compared: the queries do not exercise the corpus", checked)
	}
}

// Compaction keeps results identical and happens on its own once enough
// documents are dead.
func TestCompaction(t *testing.T) {
	g := synthetic.New(3)
	x, err := index.New(scoring.WithTags(tag.Default()), scoring.WithCompactRatio(0.5))
	if err != nil {
		t.Fatal(err)
	}
	nv, err := scoring.NewNaive(scoring.WithTags(tag.Default()))
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	for i := range n {
		d := g.Doc(i)
		_ = x.Upsert(d)
		_ = nv.Upsert(d)
	}
	// Dead reaches half the live ones at the 1334th deletion.
	for i := range 1333 {
		id := g.Doc(i).ID
		x.Delete(id)
		nv.Delete(id)
	}
	if st := x.Stats(); st.Dead != 1333 || st.Docs != n-1333 {
		t.Fatalf("stats before the threshold %+v", st)
	}
	x.Delete(g.Doc(1333).ID)
	nv.Delete(g.Doc(1333).ID)
	if st := x.Stats(); st.Dead != 0 || st.Docs != n-1334 {
		t.Fatalf("stats after the threshold %+v, want compacted", st)
	}
	for i := range 30 {
		q := g.Query(synthetic.Mixed, i)
		q.MinScore = -1
		sameHits(t, x.Search(q, nil, g.Now()).Hits, nv.Search(q, nil, g.Now()).Hits)
	}
}

// Fields of normTableLen terms and more are normalized outside the
// per-query table, with the field weights the table carries: the index
// and the naive scan still agree on cards whose description and input
// schema run to hundreds of words.
func TestLongFieldsEqualNaive(t *testing.T) {
	words := strings.Fields("translate transcribe summarize classify detect image speech table invoice contract " +
		"weather flight hotel stock chart code review search email calendar")
	r := rand.New(rand.NewPCG(3, 4))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			fmt.Fprintf(&b, " w%d ", r.IntN(400))
		}
		return b.String()
	}
	var docs []scoring.Doc
	for i := range 200 {
		docs = append(docs, scoring.Doc{ID: fmt.Sprintf("agent-%03d", i), Name: text(1 + i%3), Description: text(20 + (i%7)*60),
			Tools: []scoring.ToolText{{Name: text(1), Description: text(5), InputProps: []string{text(10 + (i%5)*80)}}}})
	}
	x, nv := engines(t, docs)
	for _, q := range []string{"translate", "classify image", "invoice contract table", "w7 speech", "flight hotel weather w12"} {
		if r := search(t, x, nv, scoring.Query{Text: q, Limit: 20}, nil); len(r.Hits) == 0 {
			t.Fatalf("%q: no hits, nothing compared", q)
		}
	}
}

// A sentence a field says again counts once, in the index as in the
// naive scan: both agree on cards whose descriptions and tools repeat
// sentences, and a card that says its description twice scores as the
// same card saying it once.
func TestRepeatedSentencesEqualNaive(t *testing.T) {
	pool := []string{"Translate invoices into German.", "Summarize long contracts!", "Classify images of receipts.",
		"Detect speech in recordings?", "Returns a JSON report.", "Search flights and hotels.\n", "translate  INVOICES into german."}
	r := rand.New(rand.NewPCG(5, 6))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pool[r.IntN(len(pool))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	var docs []scoring.Doc
	for i := range 120 {
		docs = append(docs, scoring.Doc{ID: fmt.Sprintf("agent-%03d", i), Name: text(1), Description: text(1 + i%6),
			Tools: []scoring.ToolText{{Name: "report", Description: text(2)}, {Name: "export", Description: text(2)}}})
	}
	docs = append(docs, scoring.Doc{ID: "once", Description: "Transcribe voicemail. Route urgent calls."},
		scoring.Doc{ID: "twice", Description: "Transcribe voicemail. Route urgent calls. Transcribe voicemail. Route urgent calls."})
	x, nv := engines(t, docs)
	for _, q := range []string{"translate invoices", "json report", "classify receipts speech", "flights hotels contracts", "transcribe voicemail"} {
		if r := search(t, x, nv, scoring.Query{Text: q, Limit: 50}, nil); len(r.Hits) == 0 {
			t.Fatalf("%q: no hits, nothing compared", q)
		}
	}
	hits := x.Search(scoring.Query{Text: "transcribe voicemail", Limit: 10}, nil, t0).Hits
	if len(hits) != 2 || hits[0].Score != hits[1].Score {
		t.Fatalf("once and twice: hits %+v, want two with one score", hits)
	}
}
