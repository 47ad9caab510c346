package discovery_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adpnode/adpnode/internal/cardtest"
	"github.com/adpnode/adpnode/node/discovery"
	"github.com/adpnode/adpnode/scoring"
)

// bundledDisco indexes the testnet's bundled agent cards, each signed
// with its own key.
func bundledDisco(t *testing.T) *discovery.Discovery {
	t.Helper()
	d, err := discovery.New(discovery.WithClock(func() time.Time { return discoNow }), discovery.WithSignals(func(string) scoring.Signals { return scoring.Signals{} }))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../testnet/agents/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("bundled agents: %d files, %v", len(files), err)
	}
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := cardtest.Card(t, byte(i+1), `{"id": "ID", `+string(b[1:]))
		if err := d.Put(c, discoNow, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestMultiAspectQueryKeepsEachAspect(t *testing.T) {
	// A query for five skills returns an agent for each one, the OCR
	// agent among them, and reports the relevance floor it applied: the
	// default floor divided by the five aspects.
	d := bundledDisco(t)
	resp := discover(t, d, `{"query": "translate, transcribe, OCR, statistics, code generation", "limit": 20}`)
	names := map[string]bool{}
	for _, r := range resp.Results {
		names[r.Name] = true
	}
	for _, want := range []string{"PageScan OCR", "Transcribe Now", "Gopher Coder", "Tabular Insight", "Polyglot EU Translator"} {
		if !names[want] {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	if f, ok := resp.AppliedFilters["relevance_floor"].(float64); !ok || f != scoring.DefaultRelevanceFloor/5 {
		t.Fatalf("applied relevance_floor %v, want %v", resp.AppliedFilters["relevance_floor"], scoring.DefaultRelevanceFloor/5)
	}
	// One aspect: the plain floor, reported.
	one := discover(t, d, `{"query": "OCR"}`)
	if f := one.AppliedFilters["relevance_floor"]; f != scoring.DefaultRelevanceFloor {
		t.Fatalf("one aspect: relevance_floor %v", f)
	}
	if len(one.Results) == 0 || one.Results[0].Name != "PageScan OCR" {
		t.Fatalf("OCR query: %+v", one.Results)
	}
	// The profile's candidates, in the same order, with the bindings.
	if len(one.Candidates) != len(one.Results) || one.Candidates[0].ID != one.Results[0].ID {
		t.Fatalf("candidates %+v", one.Candidates)
	}
	td, tr, _ := newDisco(t, func(string) scoring.Signals { return scoring.Signals{} })
	got := discover(t, td, `{"query": "translate contracts", "tags": ["python"]}`)
	if len(got.Candidates) != 1 || got.Candidates[0].ID != tr.ID || len(got.Candidates[0].Bindings) != 2 ||
		got.Candidates[0].Bindings[1].Endpoint != "https://lingua.example/v1" || len(got.Candidates[0].MatchedTags) != 1 {
		t.Fatalf("candidates %+v", got.Candidates)
	}
}

func TestRelevanceFloorSettable(t *testing.T) {
	// The floor is the client's to set: 1 keeps only the results as
	// relevant as the best one, 0 keeps every match.
	d := bundledDisco(t)
	q := `"query": "translate, transcribe, OCR, statistics, code generation", "limit": 100, "min_score": 0`
	strict := discover(t, d, `{`+q+`, "constraints": {"relevance_floor": 1}}`)
	none := discover(t, d, `{`+q+`, "constraints": {"relevance_floor": 0}}`)
	dflt := discover(t, d, `{`+q+`}`)
	if !(len(strict.Results) < len(dflt.Results) && len(dflt.Results) <= len(none.Results)) || len(strict.Results) == 0 {
		t.Fatalf("results: floor 1 %d, default %d, floor 0 %d", len(strict.Results), len(dflt.Results), len(none.Results))
	}
	if f := strict.AppliedFilters["relevance_floor"]; f != 1.0 {
		t.Fatalf("applied %v", f)
	}
	if len(strict.UnsupportedFilters) != 0 {
		t.Fatalf("unsupported %v", strict.UnsupportedFilters)
	}
}
