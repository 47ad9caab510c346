package scoring

import "strings"

// maxMemoWords bounds a termMemo: once it holds this many words it
// starts over with the next document. The 100,000 cards of the
// synthetic corpus (scoring/synthetic) write 16,183 distinct words.
const maxMemoWords = 1 << 15

// span is where the term numbers of one word lie in termMemo.ids.
type span struct{ lo, hi int32 }

// termMemo remembers what one model's analyzer makes of every word it
// has read (its term, none for a stopword, then its camel-case parts)
// and numbers the terms, so that a word the documents repeat is
// analysed once and their terms are counted in slices indexed by term
// number instead of maps keyed by term. It also remembers the clean and
// canonical forms of the declared tags it has seen (Tags are
// deterministic). It holds up to maxMemoWords words and as many tags. A
// TermCounts owns one; not safe for concurrent use.
type termMemo struct {
	model *Model             // whose analyzer filled the memo; nil: empty
	words map[string]span    // token as written -> its terms in ids
	ids   []int32            // term numbers of the words, by span
	terms []string           // term number -> term
	num   map[string]int32   // term -> term number
	tags  map[string]memoTag // declared tag -> its forms
}

// use readies the memo for a document analysed by c: it starts over
// when it was filled by another model or is full.
func (m *termMemo) use(c *Model) {
	if m.model == c && len(m.words) < maxMemoWords && len(m.tags) < maxMemoWords {
		return
	}
	m.model = c
	m.words = make(map[string]span)
	m.ids = m.ids[:0]
	clear(m.terms)
	m.terms = m.terms[:0]
	m.num = make(map[string]int32)
	m.tags = make(map[string]memoTag)
}

// each calls fn with the term numbers of every token of s that has
// terms, in order: the terms the model's analyzer makes of s
// (analyzer.each).
func (m *termMemo) each(s string, fn func(ids []int32)) {
	tokens(s, func(tok string, bigram bool) {
		sp, ok := m.words[tok]
		if !ok {
			sp = m.learn(tok, bigram)
		}
		if sp.hi > sp.lo {
			fn(m.ids[sp.lo:sp.hi])
		}
	})
}

// learn analyses a token not seen before and remembers its terms.
func (m *termMemo) learn(tok string, bigram bool) span {
	lo := int32(len(m.ids))
	m.model.an.token(tok, bigram, nil, func(t string) {
		m.ids = append(m.ids, m.number(t))
	})
	sp := span{lo, int32(len(m.ids))}
	m.words[strings.Clone(tok)] = sp // tok is a part of the document's text
	return sp
}

// number returns the number of term t, numbering it if it is new.
func (m *termMemo) number(t string) int32 {
	if n, ok := m.num[t]; ok {
		return n
	}
	n := int32(len(m.terms))
	t = strings.Clone(t)
	m.terms = append(m.terms, t)
	m.num[t] = n
	return n
}

// memoTag is what termMemo remembers of a declared tag.
type memoTag struct {
	DocTag        // clean (Raw) and canonical (Canon); Raw is empty for a tag that cleans to nothing
	text   string // Raw with its separators as spaces: the words of the skills field
}

// tag returns what the model's vocabulary makes of a declared tag.
func (m *termMemo) tag(raw string) memoTag {
	if t, ok := m.tags[raw]; ok {
		return t
	}
	var t memoTag
	if cl := m.model.tags.Clean(raw); cl != "" {
		// Clones: the forms may share the document's text.
		t.Raw, t.Canon = strings.Clone(cl), strings.Clone(m.model.tags.Normalize(cl))
		t.text = strings.ReplaceAll(t.Raw, "/", " ")
	}
	m.tags[strings.Clone(raw)] = t
	return t
}
