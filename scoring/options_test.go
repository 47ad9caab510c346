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

func TestRelevanceFloorPerAspect(t *testing.T) {
	m, err := scoring.NewModel()
	if err != nil {
		t.Fatal(err)
	}
	set := 0.5
	for _, tt := range []struct {
		q    scoring.Query
		want float64
	}{
		{scoring.Query{Text: "OCR"}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "optical character recognition for receipts"}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "translate, transcribe, OCR, statistics, code generation"}, scoring.DefaultRelevanceFloor / 5},
		{scoring.Query{Text: "翻译；语音识别"}, scoring.DefaultRelevanceFloor / 2},
		{scoring.Query{Text: "ocr,, ;\n"}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "ocr", Tags: []string{"nlp"}}, scoring.DefaultRelevanceFloor / 2},
		{scoring.Query{}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "a, b", RelevanceFloor: &set}, 0.5},
	} {
		if got := m.Prepare(tt.q).Floor; got != tt.want {
			t.Errorf("%q tags %v: floor %v, want %v", tt.q.Text, tt.q.Tags, got, tt.want)
		}
	}
}
