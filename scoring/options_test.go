package scoring_test

import (
	"math"
	"testing"
	"time"

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
		{scoring.Query{Text: "Transcribe this recording. Translate it to French! Is a summary possible? Read it aloud."}, scoring.DefaultRelevanceFloor / 4},
		{scoring.Query{Text: "Caption image.jpg with model v1.5 and nothing else."}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "ocr", Tags: []string{"nlp"}}, scoring.DefaultRelevanceFloor / 2},
		{scoring.Query{}, scoring.DefaultRelevanceFloor},
		{scoring.Query{Text: "a, b", RelevanceFloor: &set}, 0.5},
	} {
		if got := m.Prepare(tt.q).Floor; got != tt.want {
			t.Errorf("%q tags %v: floor %v, want %v", tt.q.Text, tt.q.Tags, got, tt.want)
		}
	}
}

func TestAvailabilityObserved(t *testing.T) {
	m, err := scoring.NewModel(scoring.WithAvailabilityWindow(10 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	active := scoring.ParseStatus("active")
	for _, tt := range []struct {
		name   string
		s      scoring.Signals
		status uint8
		want   float64
	}{
		{"never heard", scoring.Signals{}, active, 0},
		{"connected, never called", scoring.Signals{Connected: true}, active, 1},
		{"heard within the window", scoring.Signals{LastSeen: now.Add(-9 * time.Minute)}, active, 1},
		{"silent past the window", scoring.Signals{LastSeen: now.Add(-11 * time.Minute)}, active, 0},
		{"one failure", scoring.Signals{Connected: true, ConsecutiveFailures: 1}, active, 1 - 1.0/scoring.FailuresUnavailable},
		{"circuit open", scoring.Signals{Connected: true, LastSeen: now, ConsecutiveFailures: scoring.FailuresUnavailable}, active, 0},
		{"suspended", scoring.Signals{Connected: true}, scoring.ParseStatus("suspended"), 0},
	} {
		if got := m.Availability(tt.s, 0, tt.status, now); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: availability %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestDerivationRanks checks that a task asked with a verb finds the
// agent that names the capability with a noun: "classify" meets
// "classification" by default, and only by the derivational pairs.
func TestDerivationRanks(t *testing.T) {
	docs := []scoring.Doc{
		{ID: "a-captioner", Name: "Captioner", Description: "Image captioning model: writes a sentence about an image."},
		{ID: "b-classifier", Name: "Labeller", Description: "Image classification model: labels an image with its category."},
	}
	q := scoring.Query{Text: "classify this image", MinScore: -1}
	for _, tt := range []struct {
		derive bool
		want   string
	}{{true, "b-classifier"}, {false, "a-captioner"}} {
		n, err := scoring.NewNaive(scoring.WithDerivation(tt.derive))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if err := n.Upsert(d); err != nil {
				t.Fatal(err)
			}
		}
		res := n.Search(q, nil, time.Now())
		if len(res.Hits) == 0 || res.Hits[0].ID != tt.want {
			t.Errorf("derivation %v: hits %+v, want %s first", tt.derive, res.Hits, tt.want)
		}
	}
}
