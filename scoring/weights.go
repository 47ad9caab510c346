package scoring

import (
	"fmt"
	"math"
)

// Weights are the factor weights of the ADP §5.1 composite score. Every
// weight is non-negative and they sum to 1, so a score is in [0, 1]
// whenever every factor is.
type Weights struct {
	Tag          float64 `json:"tag"`
	Semantic     float64 `json:"semantic"`
	Reputation   float64 `json:"reputation"`
	Availability float64 `json:"availability"`
	Rating       float64 `json:"rating"`
	// Freshness weighs the freshness component (1 just received, falling
	// linearly to 0 at expiry). It is 0 by default: freshness is reported
	// as evidence and enforced by the expiry and max-age filters, and ADP
	// Table 11 has no freshness factor.
	Freshness float64 `json:"freshness"`
}

// DefaultWeights are the recommended defaults of ADP Table 11.
var DefaultWeights = Weights{Tag: 0.30, Semantic: 0.25, Reputation: 0.20, Availability: 0.15, Rating: 0.10}

// Validate returns ErrBadWeights unless every weight is finite and
// non-negative and they sum to 1 within 1e-9.
func (w Weights) Validate() error {
	sum := 0.0
	for _, v := range []float64{w.Tag, w.Semantic, w.Reputation, w.Availability, w.Rating, w.Freshness} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%w: weight %v is not a finite non-negative number", ErrBadWeights, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("%w: weights sum to %v, want 1", ErrBadWeights, sum)
	}
	return nil
}

// FieldWeights are the BM25F weights of the text fields of a card. A
// term occurrence in a field counts as that many occurrences in the
// combined pseudo-field.
type FieldWeights struct {
	Name        float64 // card name
	Skills      float64 // skill tags, split into words
	Description float64 // card description
	Tools       float64 // tool names and tool descriptions
	Schema      float64 // property names of tool input schemas
}

// DefaultFieldWeights are hand-set weights that favour the words an
// agent chose to name itself and its skills over the words of free
// text, for WithFieldWeights. By default a Model derives its field
// weights from the mean field lengths instead (Model.FieldWeightsFor),
// which ranks better on every set measured (scoring/doc.go).
var DefaultFieldWeights = FieldWeights{Name: 2.5, Skills: 2, Description: 1, Tools: 1, Schema: 0.5}

func (f FieldWeights) array() [NumFields]float64 {
	return [NumFields]float64{f.Name, f.Skills, f.Description, f.Tools, f.Schema}
}

func (f FieldWeights) validate() error {
	pos := false
	for _, v := range f.array() {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%w: field weight %v", ErrBadOption, v)
		}
		pos = pos || v > 0
	}
	if !pos {
		return fmt.Errorf("%w: every field weight is zero", ErrBadOption)
	}
	return nil
}
