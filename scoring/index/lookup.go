package index

import "slices"

// lookupRatio: once no document may enter (closed), a term whose postings
// outnumber the held documents lookupRatio times is read by looking the
// held documents up in its postings rather than by scanning them.
const lookupRatio = 8

// sortedHeld returns the held documents in ascending order. Once closed,
// the held set no longer grows, so the sorted copy is kept while its
// length matches.
func (s *scratch) sortedHeld() []uint32 {
	if len(s.sorted) != len(s.touched) {
		s.sorted = append(s.sorted[:0], s.touched...)
		slices.Sort(s.sorted)
	}
	return s.sorted
}

// gallop returns the first index at or after from whose value is at
// least v (len(a) when there is none), probing 1, 2, 4, ... ahead and
// then searching the last step by halves.
func gallop(a []uint32, from int, v uint32) int {
	if from >= len(a) || a[from] >= v {
		return from
	}
	lo, step := from, 1 // a[lo] < v
	hi := from + step
	for hi < len(a) && a[hi] < v {
		lo = hi
		step *= 2
		hi = from + step
	}
	hi = min(hi, len(a))
	// a[lo] < v, and a[hi] >= v or hi == len(a).
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < v {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
