package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/tag"
	"github.com/adpnode/adpnode/scoring"
)

func TestGallop(t *testing.T) {
	a := []uint32{2, 3, 5, 8, 13, 21, 34, 55, 89}
	for from := range len(a) + 1 {
		for v := uint32(0); v <= 90; v++ {
			want := from
			for want < len(a) && a[want] < v {
				want++
			}
			if got := gallop(a, from, v); got != want {
				t.Fatalf("gallop(from %d, %d) = %d, want %d", from, v, got, want)
			}
		}
	}
}

// Every posting's contribution is within the bound of its block, with
// documents replaced and deleted (dead ones still counted) and after
// compaction (bounds rebuilt).
func TestBlockBoundsHold(t *testing.T) {
	x, err := New(scoring.WithTags(tag.Default()), scoring.WithCompactRatio(1e9))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"translate", "invoice", "german", "summarize", "report", "image", "audio", "legal", "finance", "code"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	const n = 3000
	for i := range n {
		d := scoring.Doc{ID: fmt.Sprint(i % 2500), Name: text(1 + r.IntN(3)), Description: text(r.IntN(40)),
			Examples: []scoring.ExampleText{{Text: text(1 + r.IntN(12))}, {Text: text(1 + r.IntN(30))}}}
		if err := x.Upsert(d); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			x.Delete(fmt.Sprint(r.IntN(2500)))
		}
	}
	check := func(stage string) {
		x.mu.RLock()
		defer x.mu.RUnlock()
		mean, avg, exAvg := x.cfg.LengthStats(&x.lenSums, x.live, x.exLive)
		tq := textQuery{avg: &avg, norms: x.cfg.Norms(&mean, &avg), exAvg: exAvg}
		withBlocks := 0
		for term, tn := range x.terms {
			po := &x.post[tn]
			qt := queryTerm{Term: scoring.Term{Text: term, DF: len(po.docs), ExDF: len(po.ex), IDF: 1, ExIDF: 1}, po: po}
			bounds := map[uint32][2]float64{}
			x.termBlocks(&qt, &tq, func(blk uint32, ctx, ex float64) { bounds[blk] = [2]float64{ctx, ex} })
			if po.blocks != nil {
				withBlocks++
				if !slices.IsSortedFunc(po.blocks, func(a, b blockBound) int { return int(a.blk) - int(b.blk) }) {
					t.Fatalf("%s: %q blocks out of order", stage, term)
				}
			}
			for i, d := range po.docs {
				if x.flags[d]&flagAlive == 0 {
					continue
				}
				c := x.cfg.Saturate(x.cfg.PseudoTF(po.tfs[i], x.lens[int(d)*scoring.NumFields:int(d+1)*scoring.NumFields], &avg, tq.norms))
				if b, ok := bounds[d>>blockShift]; !ok || c > b[0] {
					t.Fatalf("%s: %q doc %d contributes %v, block bound %v", stage, term, d, c, b[0])
				}
			}
			for i, e := range po.ex {
				d := x.exDoc[e]
				if x.flags[d]&flagAlive == 0 {
					continue
				}
				c := x.cfg.Saturate(x.cfg.ExampleTF(po.extf[i], x.exLen[e], exAvg))
				if b, ok := bounds[d>>blockShift]; !ok || c > b[1] {
					t.Fatalf("%s: %q example %d contributes %v, block bound %v", stage, term, e, c, b[1])
				}
			}
		}
		if withBlocks == 0 {
			t.Fatalf("%s: no term has block bounds", stage)
		}
	}
	check("with dead documents")
	x.Compact()
	check("compacted")
}
