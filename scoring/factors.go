package scoring

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// QueryTag is one query tag.
type QueryTag struct {
	Display string // as asked, cleaned ("nlp/*", "py")
	Raw     string // cleaned without the "/*" suffix
	Canon   string
	Prefix  bool
}

// DocTag is one declared tag of a document: cleaned and canonical.
type DocTag struct{ Raw, Canon string }

// Plan is a query after validation and normalization: what both engines
// (the index and Naive) score against.
type Plan struct {
	Soft       []QueryTag // tags, required and preferred tags, deduplicated
	Required   []string   // canonical
	Excluded   []string   // canonical
	Terms      []string   // distinct analysed terms, in query order
	QTF        []int      // occurrences of each term in the query
	Protocols  []string
	MaxAge     time.Duration
	AllowStale bool
	Exclude    map[string]struct{} // ids no result may have
	Limit      int
	MinScore   float64
	Weights    Weights // effective
	Other      float64 // weight of the non-relevance factors: bound on their contribution
	FilterOnly bool    // no tags and no text: every doc passing the filters is a candidate
	// Floor is the relevance floor of this query (RelevanceFloor): a
	// candidate whose relevance is below Floor times the best relevance
	// is dropped.
	Floor    float64
	Warnings []string
}

// Prepare validates and normalizes q: limits clamped (with a warning),
// tags cleaned and normalized, text analysed, weights made effective.
func (c *Model) Prepare(q Query) *Plan {
	p := &Plan{MaxAge: q.MaxAge, AllowStale: q.AllowStale, Exclude: q.Exclude, Limit: q.Limit, MinScore: q.MinScore}
	switch {
	case p.Limit <= 0:
		p.Limit = DefaultLimit
	case p.Limit > MaxLimit:
		p.Limit = MaxLimit
		p.Warnings = append(p.Warnings, "limit reduced to the maximum")
	}
	if math.IsNaN(p.MinScore) {
		p.MinScore = DefaultMinScore
	}
	seen := make(map[string]bool)
	addSoft := func(list []string) {
		for i, raw := range list {
			if i >= MaxQueryTags {
				p.Warnings = append(p.Warnings, "too many tags: extra tags ignored")
				break
			}
			qt, ok := c.queryTag(raw)
			if !ok {
				continue
			}
			key := qt.Canon
			if qt.Prefix {
				key += "/*"
			}
			if !seen[key] {
				seen[key] = true
				p.Soft = append(p.Soft, qt)
			}
		}
	}
	addSoft(q.Tags)
	addSoft(q.RequiredTags)
	addSoft(q.PreferredTags)
	for i, raw := range q.RequiredTags {
		if qt, ok := c.queryTag(raw); ok && i < MaxQueryTags {
			p.Required = append(p.Required, qt.Canon)
		}
	}
	for i, raw := range q.ExcludedTags {
		if qt, ok := c.queryTag(raw); ok && i < MaxQueryTags {
			p.Excluded = append(p.Excluded, qt.Canon)
		}
	}
	for i, pr := range q.Protocols {
		if i >= MaxQueryTags {
			break
		}
		if pr = strings.ToLower(strings.TrimSpace(pr)); pr != "" {
			p.Protocols = append(p.Protocols, pr)
		}
	}
	text := q.Text
	if len(text) > MaxQueryBytes {
		text = text[:MaxQueryBytes]
		p.Warnings = append(p.Warnings, "query text truncated")
	}
	tseen := make(map[string]int) // term -> position in p.Terms
	qa := c.an
	qa.chat = c.chat && qa.stopwords
	qa.eachMemo(text, make(map[string]string), func(t string) {
		if i, ok := tseen[t]; ok {
			p.QTF[i]++
			return
		}
		tseen[t] = len(p.Terms)
		p.Terms = append(p.Terms, t)
		p.QTF = append(p.QTF, 1)
	})
	if strings.TrimSpace(q.Text) != "" && len(p.Terms) == 0 {
		p.Warnings = append(p.Warnings, "query text has no searchable terms")
	}
	w := c.weights
	hasTags, hasText := len(p.Soft) > 0, len(p.Terms) > 0
	switch {
	case hasTags && !hasText:
		w.Tag, w.Semantic = w.Tag+w.Semantic, 0
	case !hasTags && hasText:
		w.Tag, w.Semantic = 0, w.Tag+w.Semantic
	case !hasTags && !hasText:
		p.FilterOnly = true
		if rest := w.Reputation + w.Availability + w.Rating + w.Freshness; rest > 0 {
			w = Weights{Reputation: w.Reputation / rest, Availability: w.Availability / rest,
				Rating: w.Rating / rest, Freshness: w.Freshness / rest}
		} else {
			w = Weights{}
		}
	}
	p.Weights = w
	p.Other = w.Reputation + w.Availability + w.Rating + w.Freshness
	p.Floor = c.RelevanceFloor(q, len(p.Soft))
	return p
}

// RelevanceFloor returns the relevance floor of q: q.RelevanceFloor when
// the query sets it, else the model's floor (WithRelevanceFloor) divided
// by the number of aspects the query asks for. Each query tag is an
// aspect, and so is each clause of the text (Clauses: split at commas,
// semicolons, line breaks and sentence ends, keeping those with a
// letter or digit).
//
// Why divide: the floor keeps agents that are clearly less relevant than
// the best one out of the answer, so that reputation, availability and
// rating cannot lift them. But an agent that answers one aspect of a
// query for k distinct skills ("translate, transcribe, OCR, statistics,
// code generation") matches about 1/k of the query's terms or tags, and
// its relevance is about 1/k of an agent that would answer them all:
// measured against the best result with the plain floor, it is cut
// although it is exactly what the client asked for, one aspect in k.
// Measured against 1/k of the best result, an agent as good on its
// aspect as the best result is on the whole query stays. A one-aspect
// query keeps the plain floor. softTags is the number of distinct query
// tags (Plan.Soft).
func (c *Model) RelevanceFloor(q Query, softTags int) float64 {
	if q.RelevanceFloor != nil {
		return min(max(*q.RelevanceFloor, 0), 1)
	}
	aspects := softTags + Clauses(q.Text)
	if aspects <= 1 {
		return c.floor
	}
	return c.floor / float64(aspects)
}

// Clauses counts the clauses of a query text: the parts between commas,
// semicolons, line breaks and sentence ends (ASCII and full-width, with
// the sentence ends of CJK text) that hold a letter or digit. A full
// stop, question or exclamation mark ends a sentence when white space or
// the end of the text follows it, so that "v1.5" or "image.jpg" stay one
// part: a task described in several sentences asks for several steps.
func Clauses(text string) int {
	if len(text) > MaxQueryBytes {
		text = text[:MaxQueryBytes]
	}
	n, has := 0, false
	for i, r := range text {
		switch {
		case isClauseBreak(r) || isSentenceEnd(r) && sentenceEndsAt(text, i+utf8.RuneLen(r)):
			if has {
				n++
			}
			has = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			has = true
		}
	}
	if has {
		n++
	}
	return n
}

func isClauseBreak(r rune) bool {
	switch r {
	case ',', ';', '\n', '，', '；', '。', '？', '！', '、':
		return true
	}
	return false
}

func isSentenceEnd(r rune) bool { return r == '.' || r == '?' || r == '!' }

// sentenceEndsAt reports whether a sentence mark before offset i ends a
// sentence: the text ends there or white space follows.
func sentenceEndsAt(text string, i int) bool {
	if i >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

// queryTag parses one query tag: "nlp/*" is a prefix query.
func (c *Model) queryTag(raw string) (QueryTag, bool) {
	display := c.tags.Clean(raw)
	base, prefix := display, false
	if strings.HasSuffix(base, "/*") {
		base, prefix = strings.TrimSuffix(base, "/*"), true
	}
	canon := c.tags.Normalize(base)
	if canon == "" || strings.ContainsRune(canon, '*') {
		return QueryTag{}, false
	}
	return QueryTag{Display: display, Raw: base, Canon: canon, Prefix: prefix}, true
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

// Term is one text term of a query with its statistics.
type Term struct {
	Text       string
	DF, ExDF   int // documents and examples with the term
	IDF, ExIDF float64
}

// TermWeights returns the weights of a query term occurring qtf times
// in the query: in the context (df of n documents) and in the passages
// (exDF of exLive). Each is the term's idf times its query-side
// saturation (k1+1)*qtf/(k1+qtf), BM25's document-side saturation applied
// to the query as to a short document: 1 for a term said once, at most
// k1+1 however often a long task description repeats it.
func (c *Model) TermWeights(n, df, exLive, exDF, qtf int) (idf, exIdf float64) {
	q := 1.0
	if qtf > 1 {
		q = (c.k1 + 1) * float64(qtf) / (c.k1 + float64(qtf))
	}
	return IDF(n, df) * q, IDF(exLive, exDF) * q
}

// SelectTerms keeps the MaxQueryTerms most informative of ts, when it
// has more, and returns them with a warning saying how many were
// dropped (none otherwise). A long query, such as a whole task
// description, is scored on its rarest terms, as the terms a BM25 sum
// is made of weigh by their idf: terms found in some document first,
// then by idf, then by text, so both engines keep the same ones.
func SelectTerms(ts []Term) ([]Term, []string) {
	if len(ts) <= MaxQueryTerms {
		return ts, nil
	}
	sort.Slice(ts, func(i, j int) bool {
		if fi, fj := ts[i].DF+ts[i].ExDF > 0, ts[j].DF+ts[j].ExDF > 0; fi != fj {
			return fi
		}
		if ts[i].IDF != ts[j].IDF {
			return ts[i].IDF > ts[j].IDF
		}
		return ts[i].Text < ts[j].Text
	})
	w := fmt.Sprintf("query text has %d distinct terms: scored with the %d most informative", len(ts), MaxQueryTerms)
	return ts[:MaxQueryTerms], []string{w}
}

// SortTerms orders terms rarest first (highest idf, then by text) and
// returns the sums of their idf and example idf. Index and Naive add up
// contributions in this order, so their sums agree to the last bit.
func SortTerms(ts []Term) (idfSum, exIdfSum float64) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].IDF != ts[j].IDF {
			return ts[i].IDF > ts[j].IDF
		}
		return ts[i].Text < ts[j].Text
	})
	for _, t := range ts {
		idfSum += t.IDF
		exIdfSum += t.ExIDF
	}
	return idfSum, exIdfSum
}
