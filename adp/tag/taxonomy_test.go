package tag_test

import (
	"strings"
	"testing"

	"github.com/adpnode/adpnode/adp/tag"
)

func TestTaxonomySize(t *testing.T) {
	tax := tag.Default()
	tags := tax.StandardTags()
	if len(tags) < 80 {
		t.Fatalf("standard tags = %d, want >= 80", len(tags))
	}
	cats := map[string]int{}
	for _, tag := range tags {
		cat, _, ok := strings.Cut(tag, "/")
		if !ok {
			t.Errorf("standard tag %q is not under a category", tag)
		}
		cats[cat]++
	}
	for _, c := range tag.Categories {
		if cats[c] == 0 {
			t.Errorf("category %q has no standard tag", c)
		}
	}
	if len(cats) != 8 {
		t.Errorf("categories = %v, want the eight of ADP 3.6.2", cats)
	}
	aliases := tax.Aliases()
	if len(aliases) < 40 {
		t.Fatalf("aliases = %d, want >= 40", len(aliases))
	}
	for a := range aliases {
		if got := tax.Normalize(a); got == a {
			t.Errorf("alias %q normalizes to itself", a)
		}
	}
}

func TestNormalize(t *testing.T) {
	tax := tag.New([]string{"finance/invoicing"}, map[string]string{"bills": "invoicing", "py": "snake"})
	tests := []struct{ in, want string }{
		{"python", "coding/python"},
		{"Python", "coding/python"},
		{"  coding/python ", "coding/python"},
		{"ml", "analytical/machine-learning"},
		{"machine learning", "analytical/machine-learning"},
		{"NLP/Translation", "nlp/translation"},
		{"translate", "nlp/translation"},
		{"nlp//translation/", "nlp/translation"},
		{"cv/ocr", "vision/ocr"},
		{"nlp", "nlp"},
		{"nlp/text/sentiment", "nlp/text/sentiment"},
		{"unknown-thing", "unknown-thing"},
		{"snake_case tag", "snake-case-tag"},
		{"bills", "finance/invoicing"}, // extra alias to an extra tag
		{"py", "snake"},                // configuration overrides the built-in alias
		{"", ""},
		{"///", ""},
		{strings.Repeat("x", 500), strings.Repeat("x", tag.MaxLen)},
	}
	for _, tt := range tests {
		if got := tax.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
