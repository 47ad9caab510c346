package scoring_test

import (
	"testing"

	"github.com/adpnode/adpnode/scoring"
)

func TestDefaultsAndWeights(t *testing.T) {
	if err := scoring.DefaultWeights.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []scoring.Weights{
		{Tag: 0.5, Semantic: 0.5, Reputation: 0.1},
		{Tag: -0.1, Semantic: 1.1},
		{Tag: 0.5},
		{},
	}
	for _, w := range bad {
		if err := w.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want error", w)
		}
		if _, err := scoring.NewModel(scoring.WithWeights(w)); err == nil {
			t.Errorf("New(WithWeights(%+v)) accepted bad weights", w)
		}
	}
	if _, err := scoring.NewModel(scoring.WithBM25(0, 0.5)); err == nil {
		t.Error("k1 = 0 accepted")
	}
	if _, err := scoring.NewModel(scoring.WithBM25(1.2, 1.5)); err == nil {
		t.Error("b = 1.5 accepted")
	}
	if _, err := scoring.NewModel(scoring.WithFieldWeights(scoring.FieldWeights{})); err == nil {
		t.Error("all-zero field weights accepted")
	}
	if _, err := scoring.NewModel(scoring.WithColdStart(5, 2)); err == nil {
		t.Error("cold-start boost 2 accepted")
	}
}
