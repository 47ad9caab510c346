package scoring

import (
	"fmt"
	"sort"
)

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
