package scoring

import "math"

// LengthSums are the sums BM25's length statistics are computed from,
// over an engine's live documents and their examples: per field the
// total length, the number of documents with the field and the sum of
// the logarithms of their lengths, and the same for examples. An engine
// adds a document when it indexes it and takes it away when it deletes
// it; the sums are integers (the logarithms in fixed point), so they do
// not depend on the order of the changes, and the index and Naive agree
// to the last bit. The zero value is empty.
type LengthSums struct {
	len, with, logLen    [NumFields]int64
	exLen, exWith, exLog int64
}

// logScale is the fixed point of LengthSums' logarithms: 2^-20, far
// below what moves a pivot, and 2^43 documents of the longest field
// before a sum overflows.
const logScale = 1 << 20

func logUnits(l uint16) int64 { return int64(math.Round(math.Log(float64(l)) * logScale)) }

// AddDoc adds the field lengths of one document (sign 1) or takes them
// away (sign -1).
func (s *LengthSums) AddDoc(lens []uint16, sign int64) {
	for f, l := range lens[:NumFields] {
		s.len[f] += sign * int64(l)
		if l > 0 {
			s.with[f] += sign
			s.logLen[f] += sign * logUnits(l)
		}
	}
}

// AddExample adds the length of one example (sign 1) or takes it away
// (sign -1).
func (s *LengthSums) AddExample(n uint16, sign int64) {
	s.exLen += sign * int64(n)
	if n > 0 {
		s.exWith += sign
		s.exLog += sign * logUnits(n)
	}
}

// LengthStats returns BM25's length statistics over live documents and
// exLive examples (zero where there are none): the mean length of each
// context field over the live documents, which sets the field weights
// (FieldWeightsFor), and the pivots each field's and the examples'
// lengths are normalised against, 1 - b + b * len / pivot. The index
// and the naive scorer share it, so both normalise with the same
// arithmetic.
//
// Plain BM25 pivots on the mean length. A pivot stands for the length
// of a typical document, of which a term is expected to be said once:
// normalisation divides a term's frequency by the ratio of a field's
// length to it. Lengths vary by ratios (one card says in a line what
// another says in a manual of a thousand words) and are skewed: their
// typical value is the geometric mean over the documents that have the
// field, the centre of the log lengths, where the log length ratios
// average 0. The mean is pulled up by the few longest fields; every
// ordinary card then reads as short and a manual as only a few times
// longer than usual, so a long card's scattered words add up to more
// than a short card's one matching statement. Where lengths vary
// little the two pivots nearly agree (Gorilla Hugging Face: card
// descriptions of 28 terms on average, 24 geometric); on MetaTool,
// whose plugin descriptions run from 2 to 1,276 words, they are 52 and
// 23 terms.
// WithMeanPivot restores the mean.
func (c *Model) LengthStats(s *LengthSums, live, exLive int) (mean, pivot [NumFields]float64, exPivot float64) {
	if live > 0 {
		for f := range NumFields {
			mean[f] = float64(s.len[f]) / float64(live)
		}
	}
	if c.meanPivot {
		if exLive > 0 {
			exPivot = float64(s.exLen) / float64(exLive)
		}
		return mean, mean, exPivot
	}
	for f := range NumFields {
		if s.with[f] > 0 && mean[f] > 0 {
			pivot[f] = math.Exp(float64(s.logLen[f]) / logScale / float64(s.with[f]))
		}
	}
	if s.exWith > 0 && exLive > 0 {
		exPivot = math.Exp(float64(s.exLog) / logScale / float64(s.exWith))
	}
	return mean, pivot, exPivot
}
