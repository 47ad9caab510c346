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
	numFields
)

// Term frequencies are kept per field in 3 bits (saturating at 7), five
// fields packed into a uint16 per posting.
const (
	tfBits = 3
	tfMax  = 1<<tfBits - 1
)

// Per-document bounds: content past them is not indexed.
const (
	maxDocTags     = 128
	maxDocExamples = 64
	maxFieldLen    = math.MaxUint16
)

// idf is the BM25 inverse document frequency in its positive form
// ln(1 + (n - df + 0.5) / (df + 0.5)). df is capped at n: the index
// counts dead documents until it compacts.
func idf(n, df int) float64 {
	df = min(df, n)
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// normTableLen bounds the field lengths whose BM25F weights are
// tabulated per query; longer fields compute theirs.
const normTableLen = 256

// normTable holds weight / (1 - b + b * len / avglen) per field and
// length.
type normTable [numFields][normTableLen]float64

// fieldNorm is weight / (1 - b + b * len / avglen) of one field.
func (c *config) fieldNorm(f int, l uint16, avg *[numFields]float64) float64 {
	norm := 1.0
	if avg[f] > 0 {
		norm = 1 - c.b + c.b*float64(l)/avg[f]
	}
	return c.fields[f] / norm
}

// lengthStats returns BM25's length statistics: the mean length of each
// context field over live documents and the mean example length over
// exLive examples (zero where there are none). The index and the naive
// scorer share it, so both normalise with the same arithmetic.
func lengthStats(sumLen *[numFields]int64, live int, exSumLen int64, exLive int) (avg [numFields]float64, exAvg float64) {
	if live > 0 {
		for f := range numFields {
			avg[f] = float64(sumLen[f]) / float64(live)
		}
	}
	if exLive > 0 {
		exAvg = float64(exSumLen) / float64(exLive)
	}
	return avg, exAvg
}

func (c *config) norms(avg *[numFields]float64) *normTable {
	t := new(normTable)
	for f := range numFields {
		for l := range normTableLen {
			t[f][l] = c.fieldNorm(f, uint16(l), avg)
		}
	}
	return t
}

// pseudoTF is the BM25F combined term frequency of one posting:
// sum over fields of tf * weight / (1 - b + b * len / avglen).
func (c *config) pseudoTF(packed uint16, lens []uint16, avg *[numFields]float64, t *normTable) float64 {
	s := 0.0
	for f := range numFields {
		tf := (packed >> (tfBits * f)) & tfMax
		if tf == 0 {
			continue
		}
		l := lens[f]
		var wn float64
		if l < normTableLen {
			wn = t[f][l]
		} else {
			wn = c.fieldNorm(f, l, avg)
		}
		s += float64(tf) * wn
	}
	return s
}

// exampleTF is the BM25 length-normalized term frequency in one example.
func (c *config) exampleTF(tf uint8, n uint16, avg float64) float64 {
	norm := 1.0
	if avg > 0 {
		norm = 1 - c.b + c.b*float64(n)/avg
	}
	return float64(tf) / norm
}

// A BM25 contribution is idf(t) * tf/(k1+tf), so a sum over the query
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

// contextScore normalizes a BM25F sum to [0, 1) with curve.
func (c *config) contextScore(acc, idfSum float64) float64 {
	if idfSum <= 0 || acc <= 0 {
		return 0
	}
	return curve(acc / idfSum)
}

// exampleScore normalizes an example's BM25 sum the same way.
func (c *config) exampleScore(acc, idfSum float64) float64 {
	if idfSum <= 0 || acc <= 0 {
		return 0
	}
	return curve(acc / idfSum)
}

// contextFloor returns a context sum below which a document's weighted
// context factor w * contextScore stays below v: 0 when v or w is not
// positive (nothing is ruled out), +Inf when no sum reaches v.
func (c *config) contextFloor(v, w, idfSum float64) float64 {
	if w <= 0 || v <= 0 {
		return 0
	}
	if v >= w {
		return math.Inf(1)
	}
	return curveInverse(v/w) * idfSum * (1 - 1e-9)
}

// termBounds returns the most one term can add to the BM25F sum of a
// document and to the BM25 sum of an example: idf * saturate(tf) at the
// largest pseudo term frequency its bound allows (largest tf, shortest
// field). It never undercuts a real contribution, since both the field
// normalization and saturate grow with tf and shrink with length.
func (c *config) termBounds(qt *queryTerm, avg *[numFields]float64, exAvg float64) (ctx, ex float64) {
	if qt.po == nil {
		return 0, 0
	}
	b := &qt.po.bound
	if qt.df > 0 {
		tf := 0.0
		for f := range numFields {
			if b.maxTF[f] > 0 {
				tf += float64(b.maxTF[f]) * c.fieldNorm(f, b.minLen[f], avg)
			}
		}
		ctx = qt.idf * c.saturate(tf)
	}
	if qt.exdf > 0 && b.exTF > 0 {
		ex = qt.exIdf * c.saturate(c.exampleTF(b.exTF, b.exLen, exAvg))
	}
	return ctx, ex
}

// semanticBound bounds the semantic factor of a document that only the
// remaining terms can reach, given the sums of their termBounds.
func (c *config) semanticBound(restIdf, idfSum, restExIdf, exIdfSum float64) float64 {
	b := 0.0
	if idfSum > 0 {
		b = restIdf / idfSum
	}
	if exIdfSum > 0 {
		b = max(b, restExIdf/exIdfSum)
	}
	return curve(b)
}

// saturate is BM25's tf / (k1 + tf), in [0, 1).
func (c *config) saturate(tf float64) float64 { return tf / (c.k1 + tf) }

// reputation is the Laplace-smoothed success rate of this node's calls to
// the agent ((successes+1)/(calls+2), 0.5 with no history), plus the
// cold-start boost of ADP §5.2 while the agent has completed fewer than
// coldTasks tasks, capped at 1.
func (c *config) reputation(s Signals) float64 {
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

// rating is the mean of the ratings this node received for the agent,
// mapped from 1..5 stars to [0, 1] and shrunk towards 0.5 by two virtual
// ratings, so one 5-star vote gives 0.83, not 1.
func rating(s Signals) float64 {
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

func parseStatus(s string) uint8 {
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

// availability is 1 when the agent was reachable within the window, is
// neither inactive nor suspended, and runs fewer tasks than its
// max_concurrent_tasks (0 = no limit); else 0 (ADP Table 11).
func (c *config) availability(s Signals, maxConc int32, status uint8, now time.Time) float64 {
	if s.LastSeen.IsZero() || now.Sub(s.LastSeen) > c.availWindow {
		return 0
	}
	if status == statusInactive || status == statusSuspended {
		return 0
	}
	if maxConc > 0 && s.ActiveTasks >= int(maxConc) {
		return 0
	}
	return 1
}

// overloaded is the load filter of ADP §5.3.
func overloaded(s Signals, maxConc int32) bool {
	return maxConc > 0 && s.ActiveTasks >= int(maxConc)
}

// freshness is 1 for a record that never expires or was just indexed and
// falls linearly to 0 at its expiry; an expired record scores 0.
func freshness(indexed, expires, now int64) float64 {
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

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// qtag is one query tag.
type qtag struct {
	display string // as asked, cleaned ("nlp/*", "py")
	raw     string // cleaned without the "/*" suffix
	canon   string
	prefix  bool
}

// docTag is one declared tag of a document: cleaned and canonical.
type docTag struct{ raw, canon string }

// prepared is a query after validation and normalization.
type prepared struct {
	soft       []qtag   // tags, required and preferred tags, deduplicated
	required   []string // canonical
	excluded   []string // canonical
	terms      []string // distinct analysed terms, in query order
	protocols  []string
	maxAge     time.Duration
	allowStale bool
	limit      int
	minScore   float64
	w          Weights // effective
	other      float64 // weight of the non-relevance factors: bound on their contribution
	filterOnly bool    // no tags and no text: every doc passing the filters is a candidate
	warnings   []string
}

func (c *config) prepare(q Query) *prepared {
	p := &prepared{maxAge: q.MaxAge, allowStale: q.AllowStale, limit: q.Limit, minScore: q.MinScore}
	switch {
	case p.limit <= 0:
		p.limit = DefaultLimit
	case p.limit > MaxLimit:
		p.limit = MaxLimit
		p.warnings = append(p.warnings, "limit reduced to the maximum")
	}
	if math.IsNaN(p.minScore) {
		p.minScore = DefaultMinScore
	}
	seen := make(map[string]bool)
	addSoft := func(list []string) {
		for i, raw := range list {
			if i >= MaxQueryTags {
				p.warnings = append(p.warnings, "too many tags: extra tags ignored")
				break
			}
			qt, ok := c.queryTag(raw)
			if !ok {
				continue
			}
			key := qt.canon
			if qt.prefix {
				key += "/*"
			}
			if !seen[key] {
				seen[key] = true
				p.soft = append(p.soft, qt)
			}
		}
	}
	addSoft(q.Tags)
	addSoft(q.RequiredTags)
	addSoft(q.PreferredTags)
	for i, raw := range q.RequiredTags {
		if qt, ok := c.queryTag(raw); ok && i < MaxQueryTags {
			p.required = append(p.required, qt.canon)
		}
	}
	for i, raw := range q.ExcludedTags {
		if qt, ok := c.queryTag(raw); ok && i < MaxQueryTags {
			p.excluded = append(p.excluded, qt.canon)
		}
	}
	for i, pr := range q.Protocols {
		if i >= MaxQueryTags {
			break
		}
		if pr = strings.ToLower(strings.TrimSpace(pr)); pr != "" {
			p.protocols = append(p.protocols, pr)
		}
	}
	text := q.Text
	if len(text) > MaxQueryBytes {
		text = text[:MaxQueryBytes]
		p.warnings = append(p.warnings, "query text truncated")
	}
	tseen := make(map[string]bool)
	c.an.each(text, func(t string) {
		if !tseen[t] && len(p.terms) < MaxQueryTerms {
			tseen[t] = true
			p.terms = append(p.terms, t)
		}
	})
	if strings.TrimSpace(q.Text) != "" && len(p.terms) == 0 {
		p.warnings = append(p.warnings, "query text has no searchable terms")
	}
	w := c.weights
	hasTags, hasText := len(p.soft) > 0, len(p.terms) > 0
	switch {
	case hasTags && !hasText:
		w.Tag, w.Semantic = w.Tag+w.Semantic, 0
	case !hasTags && hasText:
		w.Tag, w.Semantic = 0, w.Tag+w.Semantic
	case !hasTags && !hasText:
		p.filterOnly = true
		if rest := w.Reputation + w.Availability + w.Rating + w.Freshness; rest > 0 {
			w = Weights{Reputation: w.Reputation / rest, Availability: w.Availability / rest,
				Rating: w.Rating / rest, Freshness: w.Freshness / rest}
		} else {
			w = Weights{}
		}
	}
	p.w = w
	p.other = w.Reputation + w.Availability + w.Rating + w.Freshness
	return p
}

// queryTag parses one query tag: "nlp/*" is a prefix query.
func (c *config) queryTag(raw string) (qtag, bool) {
	display := c.tags.Clean(raw)
	base, prefix := display, false
	if strings.HasSuffix(base, "/*") {
		base, prefix = strings.TrimSuffix(base, "/*"), true
	}
	canon := c.tags.Normalize(base)
	if canon == "" || strings.ContainsRune(canon, '*') {
		return qtag{}, false
	}
	return qtag{display: display, raw: base, canon: canon, prefix: prefix}, true
}

// tagEvidence counts the query tags a document matches and splits them
// into direct and expanded matches. A match is direct when the query tag
// is not a prefix query and the document declares the very same tag;
// every other match (alias, parent, prefix) is expanded.
func tagEvidence(tv Tags, soft []qtag, tags []docTag) (matched, expanded []string) {
	for _, q := range soft {
		hit, direct := false, false
		for _, t := range tags {
			if tv.Covers(q.canon, t.canon) {
				hit = true
				if !q.prefix && t.canon == q.canon && t.raw == q.raw {
					direct = true
				}
			}
		}
		switch {
		case direct:
			matched = append(matched, q.display)
		case hit:
			expanded = append(expanded, q.display)
		}
	}
	return matched, expanded
}

// hitWeights returns the per-hit weights: the semantic weight goes to the
// context or the example component, whichever is larger, so the semantic
// factor is max(context, example) (discovery profile §7.3: the best
// matching example counts on its own).
func hitWeights(w Weights, ctx, ex float64) Components {
	h := Components{Tag: w.Tag, Reputation: w.Reputation, Availability: w.Availability, Rating: w.Rating, Freshness: w.Freshness}
	if ex > ctx {
		h.Example = w.Semantic
	} else {
		h.Context = w.Semantic
	}
	return h
}

// better orders hits: higher score first, then smaller id.
func better(as float64, aid string, bs float64, bid string) bool {
	if as != bs {
		return as > bs
	}
	return aid < bid
}
