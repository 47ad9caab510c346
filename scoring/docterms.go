package scoring

import (
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

// TermCounts are the maps analyzeDoc counts terms in, reused across
// documents (pooled by the index).
type TermCounts struct {
	doc  map[string]uint16
	ex   map[string]uint8
	said map[uint64]struct{} // sentences counted in a context field (sentenceKey)
}

// NewTermCounts returns empty counting maps for AnalyzeDoc.
func NewTermCounts() *TermCounts {
	return &TermCounts{doc: make(map[string]uint16, 64), ex: make(map[string]uint8, 16), said: make(map[uint64]struct{}, 16)}
}

// AnalyzeDoc tokenizes every field of d. It runs outside any lock. tc
// holds empty maps it uses and leaves filled, or is nil.
func (c *Model) AnalyzeDoc(d *Doc, tc *TermCounts) DocTerms {
	var out DocTerms
	if tc == nil {
		tc = NewTermCounts()
	}
	tf := tc.doc
	count := func(f int) func(string) {
		return func(t string) {
			if out.Lens[f] < maxFieldLen {
				out.Lens[f]++
			}
			v := tf[t]
			if (v>>(TFBits*f))&TFMax < TFMax {
				v += 1 << (TFBits * f)
			}
			tf[t] = v
		}
	}
	// add counts the terms of text in field f, each sentence once: a
	// sentence the field has already said, in the same words, adds
	// nothing (sentenceKey), unless WithRepeatedSentences counts it.
	add := func(f int, text string) {
		fn := count(f)
		if c.repeats {
			c.an.each(text, fn)
			return
		}
		eachSentence(text, func(s string) {
			if k, ok := sentenceKey(f, s); ok {
				if _, said := tc.said[k]; said {
					return
				}
				tc.said[k] = struct{}{}
			}
			c.an.each(s, fn)
		})
	}
	add(fieldName, d.Name)
	add(fieldDesc, d.Description)
	seenTag := make(map[string]bool, len(d.Tags))
	for i, raw := range d.Tags {
		if i >= maxDocTags {
			break
		}
		cl := c.tags.Clean(raw)
		if cl == "" || seenTag[cl] {
			continue
		}
		seenTag[cl] = true
		out.Tags = append(out.Tags, DocTag{Raw: cl, Canon: c.tags.Normalize(cl)})
		add(fieldSkills, strings.ReplaceAll(cl, "/", " "))
	}
	for _, t := range d.Tools {
		add(fieldTools, t.Name)
		add(fieldTools, t.Description)
		for _, p := range t.InputProps {
			add(fieldSchema, p)
		}
	}
	out.Terms = make([]TermTF, 0, len(tf))
	for t, v := range tf {
		out.Terms = append(out.Terms, TermTF{t, v})
	}
	etf := tc.ex
	passage := func(fill func(count func(string))) {
		clear(etf)
		var n uint16
		fill(func(t string) {
			if n < maxFieldLen {
				n++
			}
			if etf[t] < 255 {
				etf[t]++
			}
		})
		et := ExampleTerms{N: n, Terms: make([]string, 0, len(etf)), TFs: make([]uint8, 0, len(etf))}
		for t, v := range etf {
			et.Terms = append(et.Terms, t)
			et.TFs = append(et.TFs, v)
		}
		out.Examples = append(out.Examples, et)
	}
	for i, ex := range d.Examples {
		if i >= maxDocExamples {
			break
		}
		passage(func(count func(string)) {
			c.an.each(ex.Text, count)
			for _, tag := range ex.Tags {
				c.an.each(strings.ReplaceAll(tag, "/", " "), count)
			}
		})
	}
	for i, t := range d.Tools {
		if i >= maxDocTools || len(d.Tools) < 2 {
			break // a lone tool is not diluted: the card's fields are its text
		}
		passage(func(count func(string)) {
			c.an.each(t.Name, count)
			c.an.each(t.Description, count)
			for _, p := range t.InputProps {
				c.an.each(p, count)
			}
		})
		out.Tools++
	}
	seenP := make(map[string]bool)
	for _, p := range d.Protocols {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" && !seenP[p] && len(p) <= maxTagLen {
			seenP[p] = true
			out.Protos = append(out.Protos, p)
		}
	}
	return out
}

// Reset empties the maps for the next document.
func (tc *TermCounts) Reset() {
	clear(tc.doc)
	clear(tc.ex)
	clear(tc.said)
}

// eachSentence calls fn for every sentence of text, in order: the parts
// after a sentence end that white space or the end of the text follows
// (as Clauses reads them) and after a line break. The parts cover the
// text and split it only between tokens, so analysing them one by one
// yields the terms of the whole.
func eachSentence(text string, fn func(string)) {
	start := 0
	for i, r := range text {
		n := utf8.RuneLen(r)
		if r == '\n' || isSentenceEnd(r) && sentenceEndsAt(text, i+n) {
			fn(text[start : i+n])
			start = i + n
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
