package scoring

import (
	"strings"
)

// termTF is one distinct term of a document with its per-field term
// frequencies packed as in postings.
type termTF struct {
	term string
	tf   uint16
}

// exampleTerms is one analysed example.
type exampleTerms struct {
	terms []string // distinct, in no particular order
	tfs   []uint8
	n     uint16 // length in terms
}

// docTerms is a document after analysis, before it enters an index.
type docTerms struct {
	terms    []termTF // in no particular order
	lens     [numFields]uint16
	examples []exampleTerms
	tags     []docTag
	protos   []string
}

// termCounts are the maps analyzeDoc counts terms in, reused across
// documents (pooled by the index).
type termCounts struct {
	doc map[string]uint16
	ex  map[string]uint8
}

func newTermCounts() *termCounts {
	return &termCounts{doc: make(map[string]uint16, 64), ex: make(map[string]uint8, 16)}
}

// analyzeDoc tokenizes every field of d. It runs outside any lock. tc
// holds empty maps it uses and leaves filled, or is nil.
func (c *config) analyzeDoc(d *Doc, tc *termCounts) docTerms {
	var out docTerms
	if tc == nil {
		tc = newTermCounts()
	}
	tf := tc.doc
	add := func(f int, text string) {
		c.an.each(text, func(t string) {
			if out.lens[f] < maxFieldLen {
				out.lens[f]++
			}
			v := tf[t]
			if (v>>(tfBits*f))&tfMax < tfMax {
				v += 1 << (tfBits * f)
			}
			tf[t] = v
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
		out.tags = append(out.tags, docTag{raw: cl, canon: c.tags.Normalize(cl)})
		add(fieldSkills, strings.ReplaceAll(cl, "/", " "))
	}
	for _, t := range d.Tools {
		add(fieldTools, t.Name)
		add(fieldTools, t.Description)
		for _, p := range t.InputProps {
			add(fieldSchema, p)
		}
	}
	out.terms = make([]termTF, 0, len(tf))
	for t, v := range tf {
		out.terms = append(out.terms, termTF{t, v})
	}
	etf := tc.ex
	for i, ex := range d.Examples {
		if i >= maxDocExamples {
			break
		}
		clear(etf)
		var n uint16
		count := func(t string) {
			if n < maxFieldLen {
				n++
			}
			if etf[t] < 255 {
				etf[t]++
			}
		}
		c.an.each(ex.Text, count)
		for _, tag := range ex.Tags {
			c.an.each(strings.ReplaceAll(tag, "/", " "), count)
		}
		et := exampleTerms{n: n, terms: make([]string, 0, len(etf)), tfs: make([]uint8, 0, len(etf))}
		for t, v := range etf {
			et.terms = append(et.terms, t)
			et.tfs = append(et.tfs, v)
		}
		out.examples = append(out.examples, et)
	}
	seenP := make(map[string]bool)
	for _, p := range d.Protocols {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" && !seenP[p] && len(p) <= maxTagLen {
			seenP[p] = true
			out.protos = append(out.protos, p)
		}
	}
	return out
}
