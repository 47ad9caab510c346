package scoring

import (
	"math"
	"strings"
	"time"
)

// Text fields of the BM25F context index, in FieldWeights order.
const (
	fieldName = iota
	fieldSkills
	fieldDesc
	fieldTools
	fieldSchema
	NumFields
)

// Term frequencies are kept per field in 3 bits (saturating at 7), five
// fields packed into a uint16 per posting.
const (
	TFBits = 3
	TFMax  = 1<<TFBits - 1
)

// Per-document bounds: content past them is not indexed.
const (
	maxDocTags     = 128
	maxDocExamples = 64
	maxDocTools    = 64
	maxFieldLen    = math.MaxUint16
)

// IDF is the BM25 inverse document frequency in its positive form
// ln(1 + (n - df + 0.5) / (df + 0.5)). df is capped at n: the index
// counts dead documents until it compacts.
func IDF(n, df int) float64 {
	df = min(df, n)
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// normTableLen bounds the field lengths whose BM25F weights are
// tabulated per query; longer fields compute theirs.
const normTableLen = 256

// NormTable holds weight / (1 - b + b * len / pivot) per field and
// length below normTableLen, and the field weights for longer fields.
type NormTable struct {
	norm   [NumFields][normTableLen]float64
	weight [NumFields]float64
}

// Short returns the tabulated weight / (1 - b + b * len / pivot) of
// field f at length l (below normTableLen).
func (t *NormTable) Short(f int, l uint8) float64 { return t.norm[f][l] }

// FieldWeightsFor returns the BM25F field weights for these mean field
// lengths: the weights set with WithFieldWeights, else the weights the
// lengths imply (the default). Each field then weighs 1/sqrt(mean
// length), so that a field counts as a vector of unit length on
// average, as in the cosine normalization of the vector space model:
// a word of a 4-word name weighs 4 times a word of a 64-word
// description, between one bag of words (1 time) and fields of equal
// mass (16 times), and a long input schema weighs less per word
// without drowning the name by its length. The weights are scaled so
// that sum(weight * mean length) is the mean length of a card, so k1
// keeps its meaning; with one field the weight is 1 (plain BM25). A
// field no document has weighs 0. Nothing is hand-set: the weights
// follow the directory the node holds.
func (c *Model) FieldWeightsFor(avg *[NumFields]float64) [NumFields]float64 {
	if c.fixedFields {
		return c.fields
	}
	var w [NumFields]float64
	total, sqrtSum := 0.0, 0.0
	for f := range NumFields {
		if avg[f] > 0 {
			total += avg[f]
			sqrtSum += math.Sqrt(avg[f])
		}
	}
	if sqrtSum == 0 {
		return w
	}
	scale := total / sqrtSum
	for f := range NumFields {
		if avg[f] > 0 {
			w[f] = scale / math.Sqrt(avg[f])
		}
	}
	return w
}

// Norm is weight / (1 - b + b * len / pivot) of field f at length l,
// with the weights of t: tabulated below normTableLen, computed above.
// t must have been filled (FillNorms) for pivot.
func (c *Model) Norm(t *NormTable, f int, l uint16, pivot *[NumFields]float64) float64 {
	if l < normTableLen {
		return t.norm[f][l]
	}
	return c.fieldNorm(t.weight[f], f, l, pivot)
}

func (c *Model) fieldNorm(w float64, f int, l uint16, pivot *[NumFields]float64) float64 {
	norm := 1.0
	if pivot[f] > 0 {
		norm = 1 - c.b + c.b*float64(l)/pivot[f]
	}
	return w / norm
}

// Norms returns the field length normalization table for these mean
// field lengths and pivots (LengthStats), for PseudoTF.
func (c *Model) Norms(mean, pivot *[NumFields]float64) *NormTable {
	t := new(NormTable)
	c.FillNorms(t, mean, pivot)
	return t
}

// FillNorms is Norms into a table the caller owns (an engine reuses one
// across queries).
func (c *Model) FillNorms(t *NormTable, mean, pivot *[NumFields]float64) {
	t.weight = c.FieldWeightsFor(mean)
	for f := range NumFields {
		for l := range normTableLen {
			t.norm[f][l] = c.fieldNorm(t.weight[f], f, uint16(l), pivot)
		}
	}
}

// PseudoTF is the BM25F combined term frequency of one posting:
// sum over fields of tf * weight / (1 - b + b * len / pivot).
func (c *Model) PseudoTF(packed uint16, lens []uint16, pivot *[NumFields]float64, t *NormTable) float64 {
	s := 0.0
	for f := range NumFields {
		tf := (packed >> (TFBits * f)) & TFMax
		if tf == 0 {
			continue
		}
		s += float64(tf) * c.Norm(t, f, lens[f], pivot)
	}
	return s
}

// ExampleTF is the BM25 length-normalized term frequency in one example,
// pivot the examples' (LengthStats).
func (c *Model) ExampleTF(tf uint8, n uint16, pivot float64) float64 {
	norm := 1.0
	if pivot > 0 {
		norm = 1 - c.b + c.b*float64(n)/pivot
	}
	return float64(tf) / norm
}

// A BM25 contribution is IDF(t) * tf/(k1+tf), so a sum over the query
// terms is at most the sum of their idf, approached as every term grows
// frequent. The context and example factors are that ratio, y =
// sum / sum(idf) in [0, 1), lifted by the curve
//
//	curve(y) = y * (1+c) / (y+c), c = curveC,
//
// which keeps the order of the sums (no two different sums tie, as they
// would under a cap) and maps the reference matches near the top: every
// query term present once in an example of average length (y = 1/(k1+1)
// = 0.45) scores 0.81; twice in the context fields (y = 0.63), 0.89.
const curveC = 0.25

func curve(y float64) float64 {
	if y <= 0 {
		return 0
	}
	return math.Min(1, y*(1+curveC)/(y+curveC))
}

// curveInverse returns the y whose curve is v, for v < 1.
func curveInverse(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return curveC * v / (1 + curveC - v)
}

// ContextScore normalizes a BM25F sum to [0, 1) with curve.
func (c *Model) ContextScore(acc, idfSum float64) float64 {
	if idfSum <= 0 || acc <= 0 {
		return 0
	}
	return curve(acc / idfSum)
}

// ExampleScore normalizes an example's BM25 sum the same way.
func (c *Model) ExampleScore(acc, idfSum float64) float64 {
	if idfSum <= 0 || acc <= 0 {
		return 0
	}
	return curve(acc / idfSum)
}

// ContextFloor returns a context sum below which a document's weighted
// context factor w * contextScore stays below v: 0 when v or w is not
// positive (nothing is ruled out), +Inf when no sum reaches v.
func (c *Model) ContextFloor(v, w, idfSum float64) float64 {
	if w <= 0 || v <= 0 {
		return 0
	}
	if v >= w {
		return math.Inf(1)
	}
	return curveInverse(v/w) * idfSum * (1 - 1e-9)
}

// SemanticBound bounds the semantic factor of a document that only the
// remaining terms can reach, given the sums of their termBounds.
func (c *Model) SemanticBound(restIdf, idfSum, restExIdf, exIdfSum float64) float64 {
	b := 0.0
	if idfSum > 0 {
		b = restIdf / idfSum
	}
	if exIdfSum > 0 {
		b = max(b, restExIdf/exIdfSum)
	}
	return curve(b)
}

// Saturate is BM25's tf / (k1 + tf), in [0, 1).
func (c *Model) Saturate(tf float64) float64 { return tf / (c.k1 + tf) }

// Reputation is the Laplace-smoothed success rate of this node's calls to
// the agent ((successes+1)/(calls+2), 0.5 with no history), plus the
// cold-start boost of ADP §5.2 while the agent has completed fewer than
// coldTasks tasks, capped at 1.
func (c *Model) Reputation(s Signals) float64 {
	succ, fail := max(s.Successes, 0), max(s.Failures, 0)
	if s.Calls > succ+fail { // calls without a recorded outcome count as failures
		fail = s.Calls - succ
	}
	r := (float64(succ) + 1) / (float64(succ+fail) + 2)
	if s.CompletedTasks < c.coldTasks {
		r = math.Min(1, r+c.coldBoost)
	}
	return r
}

// Rating is the mean of the ratings this node received for the agent,
// mapped from 1..5 stars to [0, 1] and shrunk towards 0.5 by two virtual
// ratings, so one 5-star vote gives 0.83, not 1.
func Rating(s Signals) float64 {
	n := float64(s.RatingCount)
	if n <= 0 {
		return 0.5
	}
	sum := math.Min(math.Max(float64(s.RatingSum), n), 5*n)
	return ((sum-n)/4 + 1) / (n + 2)
}

// Agent status values, kept per document in one octet.
const (
	statusUnknown uint8 = iota
	statusActive
	statusInactive
	statusSuspended
	statusDeprecated
	statusTesting
)

// ParseStatus maps a card status to its compact code for Availability
// (anything else is unknown).
func ParseStatus(s string) uint8 {
	switch strings.ToLower(s) {
	case "active":
		return statusActive
	case "inactive":
		return statusInactive
	case "suspended":
		return statusSuspended
	case "deprecated":
		return statusDeprecated
	case "testing":
		return statusTesting
	}
	return statusUnknown
}

// FailuresUnavailable is the number of consecutive failed calls that
// make an agent unavailable (the circuit opens); each failure before it
// lowers availability by 1/FailuresUnavailable.
const FailuresUnavailable = 3

// Availability is what this node observes of the agent (ADP Table 11):
// 0 when it is inactive or suspended, runs as many tasks as its
// max_concurrent_tasks (0 = no limit), failed FailuresUnavailable calls
// in a row, or was neither connected nor heard from within the
// availability window; else 1 less 1/FailuresUnavailable per failed call
// since the last that succeeded.
func (c *Model) Availability(s Signals, maxConc int32, status uint8, now time.Time) float64 {
	if !s.Connected && (s.LastSeen.IsZero() || now.Sub(s.LastSeen) > c.availWindow) {
		return 0
	}
	if status == statusInactive || status == statusSuspended {
		return 0
	}
	if maxConc > 0 && s.ActiveTasks >= int(maxConc) {
		return 0
	}
	if s.ConsecutiveFailures >= FailuresUnavailable {
		return 0
	}
	return 1 - float64(max(s.ConsecutiveFailures, 0))/FailuresUnavailable
}

// Overloaded is the load filter of ADP §5.3.
func Overloaded(s Signals, maxConc int32) bool {
	return maxConc > 0 && s.ActiveTasks >= int(maxConc)
}

// Freshness is 1 for a record that never expires or was just indexed and
// falls linearly to 0 at its expiry; an expired record scores 0.
func Freshness(indexed, expires, now int64) float64 {
	if expires == 0 {
		return 1
	}
	if now >= expires {
		return 0
	}
	if indexed == 0 || indexed >= expires || now <= indexed {
		return 1
	}
	return 1 - float64(now-indexed)/float64(expires-indexed)
}

// UnixNano is t in Unix nanoseconds, 0 for the zero time.
func UnixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// TagEvidence counts the query tags a document matches and splits them
// into direct and expanded matches. A match is direct when the query tag
// is not a prefix query and the document declares the very same tag;
// every other match (alias, parent, prefix) is expanded.
func TagEvidence(tv Tags, soft []QueryTag, tags []DocTag) (matched, expanded []string) {
	for _, q := range soft {
		hit, direct := false, false
		for _, t := range tags {
			if tv.Covers(q.Canon, t.Canon) {
				hit = true
				if !q.Prefix && t.Canon == q.Canon && t.Raw == q.Raw {
					direct = true
				}
			}
		}
		switch {
		case direct:
			matched = append(matched, q.Display)
		case hit:
			expanded = append(expanded, q.Display)
		}
	}
	return matched, expanded
}

// HitWeights returns the per-hit weights: the semantic weight goes to the
// context or the example component, whichever is larger, so the semantic
// factor is max(context, example) (discovery profile §7.3: the best
// matching example counts on its own).
func HitWeights(w Weights, ctx, ex float64) Components {
	h := Components{Tag: w.Tag, Reputation: w.Reputation, Availability: w.Availability, Rating: w.Rating, Freshness: w.Freshness}
	if ex > ctx {
		h.Example = w.Semantic
	} else {
		h.Context = w.Semantic
	}
	return h
}

// Better orders hits: higher score first, then smaller id.
func Better(as float64, aid string, bs float64, bid string) bool {
	if as != bs {
		return as > bs
	}
	return aid < bid
}
