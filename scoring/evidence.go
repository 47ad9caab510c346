package scoring

import "sort"

// AnyIn reports whether have and want share a string.
func AnyIn(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

// SortExamples orders matched examples best first (then examples before
// tools, then by position) and keeps MaxMatchedExamples of them.
func SortExamples(ex []ExampleMatch) []ExampleMatch {
	sort.Slice(ex, func(i, j int) bool {
		if ex[i].Score != ex[j].Score {
			return ex[i].Score > ex[j].Score
		}
		if ex[i].Tool != ex[j].Tool {
			return !ex[i].Tool
		}
		return ex[i].Index < ex[j].Index
	})
	if len(ex) > MaxMatchedExamples {
		ex = ex[:MaxMatchedExamples]
	}
	return ex
}

// PassageMatch is the match of passage e of a document with nTool tools
// among its nPassages passages (DocTerms.Examples): an example, or a
// tool when e is among the last nTool.
func PassageMatch(e, nPassages, nTool int, score float64) ExampleMatch {
	if first := nPassages - nTool; e >= first {
		return ExampleMatch{Index: e - first, Score: score, Tool: true}
	}
	return ExampleMatch{Index: e, Score: score}
}
