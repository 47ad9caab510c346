package tag_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/tag"
)

func TestCheck(t *testing.T) {
	for _, good := range []string{"nlp/translation", "NLP/Translation", "python", "c++", "c#", "text_analysis", "v1.2", "übersetzung", strings.Repeat("a", tag.MaxLen)} {
		if err := tag.Check(good); err != nil {
			t.Errorf("Check(%q) = %v", good, err)
		}
	}
	for _, bad := range []string{"", "a/", "/a", "a//b", "a b", "a/*", "\x00", "tab\t", strings.Repeat("a", tag.MaxLen+1)} {
		if err := tag.Check(bad); !errors.Is(err, tag.ErrSyntax) {
			t.Errorf("Check(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nlp/translation", "nlp/translation"},
		{" NLP/Translation ", "nlp/translation"},
		{"nlp//translation", "nlp/translation"},
		{"/nlp/translation/", "nlp/translation"},
		{"Text_Analysis", "text-analysis"},
		{"machine learning", "machine-learning"},
		{"///", ""},
		{"", ""},
		{"Vision", "vision"},
		{strings.Repeat("x", 500), strings.Repeat("x", tag.MaxLen)},
	} {
		if got := tag.Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A tag that passes Check cleans to one that passes Check: normalization
// never turns an accepted tag into a refused one.
func TestCleanKeepsSyntax(t *testing.T) {
	for _, in := range []string{"NLP/Translation", "Text_Analysis", "c++", "A.B/C_D", "Ünïcode"} {
		if err := tag.Check(in); err != nil {
			t.Fatalf("Check(%q) = %v", in, err)
		}
		if err := tag.Check(tag.Clean(in)); err != nil {
			t.Errorf("Check(Clean(%q) = %q) = %v", in, tag.Clean(in), err)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"nlp/translation/legal", []string{"nlp/translation/legal", "nlp/translation", "nlp"}},
		{"nlp/translation", []string{"nlp/translation", "nlp"}},
		{"nlp", []string{"nlp"}},
		{"", nil},
	} {
		if got := tag.Paths(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Paths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		q, tag string
		want   bool
	}{
		{"nlp", "nlp", true},
		{"nlp", "nlp/translation", true},
		{"nlp", "nlp/text/sentiment", true},
		{"nlp/translation", "nlp", false},
		{"nlp", "nlpx/translation", false},
		{"nlp/trans", "nlp/translation", false},
	}
	for _, tt := range tests {
		if got := tag.Covers(tt.q, tt.tag); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v", tt.q, tt.tag, got)
		}
	}
}

func TestKeys(t *testing.T) {
	got := tag.Default().Keys("Text_Analysis", "py", "Python", "")
	want := []string{"text-analysis", "coding/python", "coding"}
	if !slices.Equal(got, want) {
		t.Fatalf("Keys = %q, want %q", got, want)
	}
}
