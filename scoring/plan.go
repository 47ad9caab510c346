package scoring

import (
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

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
