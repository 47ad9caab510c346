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

// SortExamples orders matched examples best first (then by position) and
// keeps MaxMatchedExamples of them.
func SortExamples(ex []ExampleMatch) []ExampleMatch {
	sort.Slice(ex, func(i, j int) bool {
		if ex[i].Score != ex[j].Score {
			return ex[i].Score > ex[j].Score
		}
		return ex[i].Index < ex[j].Index
	})
	if len(ex) > MaxMatchedExamples {
		ex = ex[:MaxMatchedExamples]
	}
	return ex
}
