package scoring

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TermTF is one distinct term of a document with its per-field term
// frequencies packed as in postings.
type TermTF struct {
	Term string
	TF   uint16
}

// ExampleTerms is one analysed example.
type ExampleTerms struct {
	Terms []string // distinct, in no particular order
	TFs   []uint8
	N     uint16 // length in terms
}

// DocTerms is a document after analysis, before it enters an index.
type DocTerms struct {
	Terms []TermTF // in no particular order
	Lens  [NumFields]uint16
	// Examples are the passages scored on their own, the best one
	// counting: the document's examples, then its last Tools entries,
	// one per tool (name, description and input-schema text) when the
	// document has two tools or more.
	Examples []ExampleTerms
	Tools    int
	Tags     []DocTag
	Protos   []string
}

// TermCounts is the working state of AnalyzeDoc, reused across
// documents (pooled by the index): the terms of the words read so far
// (termMemo) and the counts of the document being analysed, by term
// number. AnalyzeDoc leaves it ready for the next document. Not safe for
// concurrent use.
type TermCounts struct {
	memo termMemo
	tf   []uint16            // by term number: the document's per-field frequencies, packed
	etf  []uint8             // by term number: the frequency in the current passage
	doc  []int32             // the term numbers with a tf, in the order first counted
	ex   []int32             // the term numbers with an etf, in the order first counted
	exN  uint16              // the length of the current passage in terms
	said map[uint64]struct{} // sentences counted in a context field (sentenceKey)
	// The finished passages of the document: their term numbers and
	// frequencies one after the other, and where each ends.
	pids  []int32
	ptfs  []uint8
	pends []passageEnd
	// What AnalyzeDoc returns in DocTerms.Terms and Examples, reused by
	// the next document.
	outTerms []TermTF
	outEx    []ExampleTerms
	outExT   []string
	outExTF  []uint8
}

// passageEnd closes a passage in TermCounts.pids.
type passageEnd struct {
	end int
	n   uint16 // length in terms
}

// NewTermCounts returns an empty TermCounts for AnalyzeDoc.
func NewTermCounts() *TermCounts {
	return &TermCounts{said: make(map[uint64]struct{}, 16)}
}

// AnalyzeDoc tokenizes every field of d. It runs outside any lock. tc
// is the working state to use, or nil; the Terms and Examples of what it
// returns are tc's, valid until tc analyses another document.
func (c *Model) AnalyzeDoc(d *Doc, tc *TermCounts) DocTerms {
	var out DocTerms
	if tc == nil {
		tc = NewTermCounts()
	}
	tc.memo.use(c)
	// add counts the terms of text in field f, each sentence once: a
	// sentence the field has already said, in the same words, adds
	// nothing (sentenceKey), unless WithRepeatedSentences counts it.
	add := func(f int, text string) {
		if c.repeats {
			tc.countField(&out.Lens, f, text)
			return
		}
		eachSentence(text, func(s string) {
			if k, ok := sentenceKey(f, s); ok {
				if _, said := tc.said[k]; said {
					return
				}
				tc.said[k] = struct{}{}
			}
			tc.countField(&out.Lens, f, s)
		})
	}
	add(fieldName, d.Name)
	add(fieldDesc, d.Description)
	for i, raw := range d.Tags {
		if i >= maxDocTags {
			break
		}
		t := tc.memo.tag(raw)
		if t.Raw == "" || slices.ContainsFunc(out.Tags, func(o DocTag) bool { return o.Raw == t.Raw }) {
			continue
		}
		out.Tags = append(out.Tags, t.DocTag)
		add(fieldSkills, t.text)
	}
	for _, t := range d.Tools {
		add(fieldTools, t.Name)
		add(fieldTools, t.Description)
		for _, p := range t.InputProps {
			add(fieldSchema, p)
		}
	}
	clear(tc.said)
	out.Terms = tc.docTerms()
	for i, ex := range d.Examples {
		if i >= maxDocExamples {
			break
		}
		tc.countPassage(ex.Text)
		for _, tag := range ex.Tags {
			tc.countPassage(strings.ReplaceAll(tag, "/", " "))
		}
		tc.endPassage()
	}
	for i, t := range d.Tools {
		if i >= maxDocTools || len(d.Tools) < 2 {
			break // a lone tool is not diluted: the card's fields are its text
		}
		tc.countPassage(t.Name)
		tc.countPassage(t.Description)
		for _, p := range t.InputProps {
			tc.countPassage(p)
		}
		tc.endPassage()
		out.Tools++
	}
	out.Examples = tc.passages()
	for _, p := range d.Protocols {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" && !slices.Contains(out.Protos, p) && len(p) <= maxTagLen {
			out.Protos = append(out.Protos, p)
		}
	}
	return out
}

// fit grows the counts by term number to every term the memo numbered.
func (tc *TermCounts) fit() {
	if n := len(tc.memo.terms); len(tc.tf) < n {
		tc.tf = append(tc.tf, make([]uint16, n-len(tc.tf))...)
		tc.etf = append(tc.etf, make([]uint8, n-len(tc.etf))...)
	}
}

// countField counts the terms of s in field f of the document, and its
// length in lens.
func (tc *TermCounts) countField(lens *[NumFields]uint16, f int, s string) {
	tc.memo.each(s, func(ids []int32) {
		tc.fit()
		for _, id := range ids {
			if lens[f] < maxFieldLen {
				lens[f]++
			}
			v := tc.tf[id]
			if v == 0 {
				tc.doc = append(tc.doc, id)
			}
			if (v>>(TFBits*f))&TFMax < TFMax {
				v += 1 << (TFBits * f)
			}
			tc.tf[id] = v
		}
	})
}

// docTerms returns the terms countField counted and empties the counts.
func (tc *TermCounts) docTerms() []TermTF {
	out := tc.outTerms[:0]
	for _, id := range tc.doc {
		out = append(out, TermTF{tc.memo.terms[id], tc.tf[id]})
		tc.tf[id] = 0
	}
	tc.doc, tc.outTerms = tc.doc[:0], out
	return out
}

// countPassage counts the terms of s in the current passage.
func (tc *TermCounts) countPassage(s string) {
	tc.memo.each(s, func(ids []int32) {
		tc.fit()
		for _, id := range ids {
			if tc.exN < maxFieldLen {
				tc.exN++
			}
			v := tc.etf[id]
			if v == 0 {
				tc.ex = append(tc.ex, id)
			}
			if v < 255 {
				tc.etf[id] = v + 1
			}
		}
	})
}

// endPassage finishes the current passage and starts the next.
func (tc *TermCounts) endPassage() {
	for _, id := range tc.ex {
		tc.pids = append(tc.pids, id)
		tc.ptfs = append(tc.ptfs, tc.etf[id])
		tc.etf[id] = 0
	}
	tc.ex = tc.ex[:0]
	tc.pends = append(tc.pends, passageEnd{end: len(tc.pids), n: tc.exN})
	tc.exN = 0
}

// passages returns the finished passages, their terms in two arrays
// shared by all, and forgets them.
func (tc *TermCounts) passages() []ExampleTerms {
	if len(tc.pends) == 0 {
		return nil
	}
	out, terms := tc.outEx[:0], tc.outExT[:0]
	for _, id := range tc.pids {
		terms = append(terms, tc.memo.terms[id])
	}
	tfs := append(tc.outExTF[:0], tc.ptfs...)
	start := 0
	for _, p := range tc.pends {
		out = append(out, ExampleTerms{Terms: terms[start:p.end:p.end], TFs: tfs[start:p.end:p.end], N: p.n})
		start = p.end
	}
	tc.pids, tc.ptfs, tc.pends = tc.pids[:0], tc.ptfs[:0], tc.pends[:0]
	tc.outEx, tc.outExT, tc.outExTF = out, terms, tfs
	return out
}

// eachSentence calls fn for every sentence of text, in order: the parts
// after a sentence end that white space or the end of the text follows
// (as Clauses reads them) and after a line break. The parts cover the
// text and split it only between tokens, so analysing them one by one
// yields the terms of the whole.
func eachSentence(text string, fn func(string)) {
	start := 0
	// Line breaks and sentence marks are ASCII, and no byte of a
	// multi-byte character is.
	for i := 0; i < len(text); i++ {
		if c := rune(text[i]); c == '\n' || isSentenceEnd(c) && sentenceEndsAt(text, i+1) {
			fn(text[start : i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		fn(text[start:])
	}
}

// sentenceKey identifies a sentence of field f by its words: the FNV-1a
// hash of what the tokenizer keeps (classify: letters, digits and
// marks) in lower case, each run of anything else read as one space,
// with f mixed in. It reports false for a sentence without a word.
func sentenceKey(f int, s string) (uint64, bool) {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ uint64(f+1)
	h *= prime
	words, sep := false, false
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		i += n
		if classify(r) == runeSep {
			sep = words
			continue
		}
		if sep {
			h = (h ^ ' ') * prime
			sep = false
		}
		switch {
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r >= utf8.RuneSelf:
			r = unicode.ToLower(r)
		}
		for ; r > 0; r >>= 8 {
			h = (h ^ uint64(r&0xff)) * prime
		}
		words = true
	}
	return h, words
}
