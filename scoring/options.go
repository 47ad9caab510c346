package scoring

import (
	"fmt"
	"math"
	"time"
)

// Option configures a Model, and so an index.Index (scoring/index) or a
// Naive scorer.
type Option func(*Model) error

// Model is the scoring model: the weights, BM25F parameters, analyzer,
// tag vocabulary and factor parameters resolved from the options, with
// the factor functions both engines (scoring/index and Naive) score
// with. It is immutable after NewModel and safe for concurrent use.
type Model struct {
	weights      Weights
	fields       [NumFields]float64
	fixedFields  bool // fields set by WithFieldWeights, else FieldWeightsFor derives them
	k1, b        float64
	tags         Tags
	an           analyzer
	availWindow  time.Duration
	coldTasks    int
	coldBoost    float64
	compactRatio float64
	floor        float64
	repeats      bool // count a sentence a field says again (WithRepeatedSentences)
	chat         bool // drop conversational words from queries (WithConversationalWords)
	meanPivot    bool // normalise lengths against their mean (WithMeanPivot)
}

func defaultConfig() Model {
	return Model{
		weights:      DefaultWeights,
		fields:       DefaultFieldWeights.array(),
		k1:           DefaultK1,
		b:            DefaultB,
		tags:         exactTags{},
		an:           analyzer{stem: true, derive: true, stopwords: true, camel: true, stems: new(stemCache)},
		availWindow:  DefaultAvailabilityWindow,
		coldTasks:    DefaultColdStartTasks,
		coldBoost:    DefaultColdStartBoost,
		compactRatio: 0.5,
		floor:        DefaultRelevanceFloor,
		chat:         true,
	}
}

// NewModel returns the scoring model the options describe: the defaults
// of this file changed by opts. A Model is immutable and safe for
// concurrent use; the index (scoring/index) and Naive score with one.
func NewModel(opts ...Option) (*Model, error) {
	c := defaultConfig()
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// Defaults of the tunable parameters.
const (
	// DefaultK1 is BM25's term-frequency saturation: the (pseudo) term
	// frequency at which a term earns half its maximum.
	DefaultK1 = 1.2
	// DefaultB is BM25's length normalization: 0 ignores field length, 1
	// divides term frequency by the field's length relative to its mean.
	DefaultB = 0.75
	// DefaultAvailabilityWindow is how recently an agent must have been
	// reachable to count as available.
	DefaultAvailabilityWindow = 10 * time.Minute
	// DefaultColdStartTasks and DefaultColdStartBoost: an agent with fewer
	// completed tasks gets the boost added to its reputation (ADP §5.2).
	DefaultColdStartTasks = 5
	DefaultColdStartBoost = 0.2
	// DefaultRelevanceFloor: a candidate whose relevance (weighted tag
	// and semantic factors) is below this share of the best candidate's
	// is not returned. Reputation, availability and rating reorder
	// relevant agents; they cannot make an irrelevant one relevant.
	DefaultRelevanceFloor = 0.3
)

// WithWeights sets the factor weights (validated).
func WithWeights(w Weights) Option {
	return func(c *Model) error {
		if err := w.Validate(); err != nil {
			return err
		}
		c.weights = w
		return nil
	}
}

// WithFieldWeights sets fixed BM25F field weights (DefaultFieldWeights
// are hand-set ones). Without it the weights follow the mean length of
// each field in the directory (Model.FieldWeightsFor).
func WithFieldWeights(f FieldWeights) Option {
	return func(c *Model) error {
		if err := f.validate(); err != nil {
			return err
		}
		c.fields, c.fixedFields = f.array(), true
		return nil
	}
}

// WithBM25 sets k1 (> 0) and b (in [0, 1]).
func WithBM25(k1, b float64) Option {
	return func(c *Model) error {
		if !(k1 > 0) || math.IsInf(k1, 0) || !(b >= 0 && b <= 1) {
			return fmt.Errorf("%w: bm25 k1=%v b=%v", ErrBadOption, k1, b)
		}
		c.k1, c.b = k1, b
		return nil
	}
}

// WithTags sets the tag vocabulary tags are cleaned, normalized and
// matched with: pass adp/tag's taxonomy (tag.Default() or the node's
// own). Without it a tag matches only the very same string: no case
// folding, no aliases and no parent matches, which is right only for
// tags already canonical on both sides.
func WithTags(t Tags) Option {
	return func(c *Model) error {
		if t == nil {
			return fmt.Errorf("%w: nil tags", ErrBadOption)
		}
		c.tags = t
		return nil
	}
}

// WithStemming turns the light stemmer on or off (on by default).
func WithStemming(on bool) Option {
	return func(c *Model) error { c.an.stem = on; return nil }
}

// WithDerivation turns on or off the joining of the derivational pairs
// Snowball's stemmer keeps apart ("classify" and "classification",
// "recognize" and "recognition", "detect" and "detector"; on by
// default). It has no effect without stemming.
func WithDerivation(on bool) Option {
	return func(c *Model) error { c.an.derive = on; return nil }
}

// WithRepeatedSentences sets whether a sentence a field of a card says
// again in the same words counts again (off by default: it counts once).
func WithRepeatedSentences(count bool) Option {
	return func(c *Model) error { c.repeats = count; return nil }
}

// WithMeanPivot sets whether field and example lengths are normalised
// against their mean length, as in plain BM25, instead of their
// geometric mean over the documents (or examples) that have them (off
// by default; Model.LengthStats).
func WithMeanPivot(on bool) Option {
	return func(c *Model) error { c.meanPivot = on; return nil }
}

// WithIdentifierSplitting turns the indexing of the words of camel-case
// identifiers, beside the identifiers, on or off (on by default).
func WithIdentifierSplitting(on bool) Option {
	return func(c *Model) error { c.an.camel = on; return nil }
}

// WithConversationalWords turns on or off the dropping from queries of
// the words that only greet or ask politely ("hey", "hello", "kindly",
// "thx"; on by default). Cards keep them. It has no effect without
// stopwords.
func WithConversationalWords(drop bool) Option {
	return func(c *Model) error { c.chat = drop; return nil }
}

// WithStopwords turns English stopword removal on or off (on by default).
func WithStopwords(on bool) Option {
	return func(c *Model) error { c.an.stopwords = on; return nil }
}

// WithAvailabilityWindow sets how recently an agent must have been seen to
// be available.
func WithAvailabilityWindow(d time.Duration) Option {
	return func(c *Model) error {
		if d <= 0 {
			return fmt.Errorf("%w: availability window %v", ErrBadOption, d)
		}
		c.availWindow = d
		return nil
	}
}

// WithColdStart sets the ADP §5.2 cold-start rule: agents with fewer than
// tasks completed tasks get boost (in [0, 1]) added to their reputation.
func WithColdStart(tasks int, boost float64) Option {
	return func(c *Model) error {
		if tasks < 0 || !(boost >= 0 && boost <= 1) {
			return fmt.Errorf("%w: cold start tasks=%d boost=%v", ErrBadOption, tasks, boost)
		}
		c.coldTasks, c.coldBoost = tasks, boost
		return nil
	}
}

// WithRelevanceFloor sets the relevance floor (in [0, 1]; 0 turns it and
// the pruning it allows off).
func WithRelevanceFloor(f float64) Option {
	return func(c *Model) error {
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("%w: relevance floor %v", ErrBadOption, f)
		}
		c.floor = f
		return nil
	}
}

// WithCompactRatio sets when the index rebuilds its postings: once deleted
// documents reach ratio times the live ones (default 0.5).
func WithCompactRatio(ratio float64) Option {
	return func(c *Model) error {
		if !(ratio > 0) || math.IsInf(ratio, 0) {
			return fmt.Errorf("%w: compact ratio %v", ErrBadOption, ratio)
		}
		c.compactRatio = ratio
		return nil
	}
}

// Weights returns the configured factor weights.
func (c *Model) Weights() Weights { return c.weights }

// Floor returns the relevance floor (WithRelevanceFloor).
func (c *Model) Floor() float64 { return c.floor }

// CompactRatio returns when an index rebuilds its postings
// (WithCompactRatio).
func (c *Model) CompactRatio() float64 { return c.compactRatio }

// Tags returns the tag vocabulary (WithTags).
func (c *Model) Tags() Tags { return c.tags }
