package scoring_test

import (
	"math"
	"slices"
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

// TestFieldWeightsFromLengths checks the default BM25F field weights:
// 1/sqrt(mean length) per field, scaled so that the weighted mean
// length of a card is its mean length; fixed weights when set.
func TestFieldWeightsFromLengths(t *testing.T) {
	m, err := scoring.NewModel()
	if err != nil {
		t.Fatal(err)
	}
	avg := [scoring.NumFields]float64{4, 0, 64, 16, 0} // name, skills, description, tools, schema
	w := m.FieldWeightsFor(&avg)
	if w[1] != 0 || w[4] != 0 {
		t.Errorf("weights %v: a field no document has weighs %v, %v, want 0", w, w[1], w[4])
	}
	if r := w[0] / w[2]; math.Abs(r-4) > 1e-12 {
		t.Errorf("weights %v: name/description = %v, want sqrt(64/4) = 4", w, r)
	}
	if r := w[3] / w[2]; math.Abs(r-2) > 1e-12 {
		t.Errorf("weights %v: tools/description = %v, want sqrt(64/16) = 2", w, r)
	}
	mass := 0.0
	for f := range scoring.NumFields {
		mass += w[f] * avg[f]
	}
	if math.Abs(mass-84) > 1e-9 {
		t.Errorf("weights %v: weighted mean length %v, want the mean length 84", w, mass)
	}
	one := [scoring.NumFields]float64{0, 0, 30, 0, 0}
	if w := m.FieldWeightsFor(&one); w[2] != 1 {
		t.Errorf("one field: weight %v, want 1 (plain BM25)", w[2])
	}
	fixed, err := scoring.NewModel(scoring.WithFieldWeights(scoring.DefaultFieldWeights))
	if err != nil {
		t.Fatal(err)
	}
	want := [scoring.NumFields]float64{2.5, 2, 1, 1, 0.5}
	if w := fixed.FieldWeightsFor(&avg); w != want {
		t.Errorf("fixed weights %v, want %v", w, want)
	}
}

// TestLengthPivots checks BM25's length statistics: the mean field
// length over live documents (for the field weights), the geometric
// mean over the documents with the field as the normalization pivot
// (the arithmetic mean with WithMeanPivot), the same for examples, and
// sums that do not depend on the order of additions and removals.
func TestLengthPivots(t *testing.T) {
	geo, err := scoring.NewModel()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := scoring.NewModel(scoring.WithMeanPivot(true))
	if err != nil {
		t.Fatal(err)
	}
	docs := [][]uint16{ // name, skills, description, tools, schema
		{2, 0, 2, 0, 0},
		{8, 0, 8, 0, 0},
		{4, 0, 1000, 0, 0},
		{99, 0, 99, 0, 99}, // removed below
	}
	var a, b scoring.LengthSums
	for _, d := range docs {
		a.AddDoc(d, 1)
	}
	a.AddDoc(docs[3], -1)
	for i := 2; i >= 0; i-- {
		b.AddDoc(docs[i], 1)
	}
	for _, n := range []uint16{3, 0, 12} {
		a.AddExample(n, 1)
	}
	b.AddExample(12, 1)
	b.AddExample(0, 1)
	b.AddExample(3, 1)
	if a != b {
		t.Errorf("sums depend on the order of changes: %+v and %+v", a, b)
	}
	mean, pivot, exPivot := geo.LengthStats(&a, 3, 3)
	if want := [scoring.NumFields]float64{14.0 / 3, 0, 1010.0 / 3, 0, 0}; mean != want {
		t.Errorf("mean lengths %v, want %v", mean, want)
	}
	for f, want := range map[int]float64{0: 4, 1: 0, 2: math.Cbrt(2 * 8 * 1000), 4: 0} {
		if math.Abs(pivot[f]-want) > 1e-4 {
			t.Errorf("field %d: pivot %v, want the geometric mean %v", f, pivot[f], want)
		}
	}
	if math.Abs(exPivot-6) > 1e-4 { // sqrt(3*12): the empty example has no length to average
		t.Errorf("example pivot %v, want 6", exPivot)
	}
	mean2, pivot2, exPivot2 := plain.LengthStats(&a, 3, 3)
	if mean2 != mean || pivot2 != mean || exPivot2 != 5 {
		t.Errorf("WithMeanPivot: pivots %v, %v, want the means %v, 5", pivot2, exPivot2, mean)
	}
}

// TestShortFieldCounts checks what the derived weights change in a
// ranking: a word in a short field (an input-schema property name) counts
// more than the same word once in a long description, where hand-set
// weights (schema 0.5, description 1) put it below.
func TestShortFieldCounts(t *testing.T) {
	long := "Reads documents and answers questions about them, in many languages and formats, with tables, " +
		"figures and footnotes kept, for invoices, contracts, letters and forms of every kind, scanned or born digital; "
	docs := []scoring.Doc{
		{ID: "a-schema", Name: "Reader", Description: long,
			Tools: []scoring.ToolText{{Name: "read", Description: "read a page", InputProps: []string{"ocr"}}}},
		{ID: "b-desc", Name: "Scanner", Description: long + "ocr included.",
			Tools: []scoring.ToolText{{Name: "scan", Description: "scan a page", InputProps: []string{"page"}}}},
		{ID: "c-other", Name: "Writer", Description: long,
			Tools: []scoring.ToolText{{Name: "write", Description: "write a page", InputProps: []string{"text"}}}},
	}
	q := scoring.Query{Text: "ocr", MinScore: -1}
	for _, tt := range []struct {
		opts []scoring.Option
		want string
	}{
		{nil, "a-schema"},
		{[]scoring.Option{scoring.WithFieldWeights(scoring.DefaultFieldWeights)}, "b-desc"},
	} {
		n, err := scoring.NewNaive(tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if err := n.Upsert(d); err != nil {
				t.Fatal(err)
			}
		}
		res := n.Search(q, nil, time.Now())
		if len(res.Hits) != 2 || res.Hits[0].ID != tt.want {
			t.Errorf("options %d: hits %+v, want 2 with %s first", len(tt.opts), res.Hits, tt.want)
		}
	}
}

// TestConversationalWords checks that a query drops the words that only
// greet or ask politely, matched before stemming, and that a card keeps
// them.
func TestConversationalWords(t *testing.T) {
	for _, tt := range []struct {
		drop bool
		q    string
		want []string
	}{
		{true, "Hey! Hello, could you kindly translate this? thx", []string{"translat"}},
		{true, "Hi, translate this into hi", []string{"hi", "translat"}}, // "hi" is also the code of Hindi: kept
		{true, "Hello, what kind of translator is there?", []string{"kind", "translat"}},
		{true, "Write a thank-you note, with greetings", []string{"write", "thank", "note", "greet"}},
		{false, "Hey, translate this", []string{"hey", "translat"}},
	} {
		m, err := scoring.NewModel(scoring.WithConversationalWords(tt.drop))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Prepare(scoring.Query{Text: tt.q}).Terms; !slices.Equal(got, tt.want) {
			t.Errorf("drop %v: terms of %q = %q, want %q", tt.drop, tt.q, got, tt.want)
		}
	}
	// A card keeps its words: a greeting no longer finds HeyGen through
	// the part of its name, its name still does.
	for _, tt := range []struct {
		drop bool
		q    string
		want string
	}{
		{true, "Hey, make me a video", "clipper"},
		{false, "Hey, make me a video", "heygen"},
		{true, "HeyGen video", "heygen"},
	} {
		n, err := scoring.NewNaive(scoring.WithConversationalWords(tt.drop))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []scoring.Doc{
			{ID: "heygen", Name: "HeyGen", Description: "Avatar videos."},
			{ID: "clipper", Name: "Clipper", Description: "Makes short videos from a script."},
		} {
			if err := n.Upsert(d); err != nil {
				t.Fatal(err)
			}
		}
		res := n.Search(scoring.Query{Text: tt.q, MinScore: -1}, nil, time.Now())
		if len(res.Hits) == 0 || res.Hits[0].ID != tt.want {
			t.Errorf("drop %v, %q: hits %+v, want %s first", tt.drop, tt.q, res.Hits, tt.want)
		}
	}
}
