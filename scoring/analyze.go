package scoring

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text analysis shared by documents and queries: lower case, split on
// anything that is not a letter or digit, drop English stopwords and
// tokens longer than maxTokenLen, then a light suffix-stripping stemmer
// (plurals, -ing, -ed, -ation/-ization, a final -e) so that "translate",
// "translating", "translated" and "translation" meet on "translat".

const maxTokenLen = 40

var stopwords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
because been before being below between both but by can could did do does doing down during each
few for from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves please also get give tell show let`) {
		m[w] = true
	}
	return m
}()

// analyzer turns text into index terms.
type analyzer struct {
	stem      bool
	stopwords bool
}

// each calls fn for every term of s in order.
func (a analyzer) each(s string, fn func(term string)) {
	start := -1
	for i, r := range s {
		var alnum bool
		if r < utf8.RuneSelf {
			alnum = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		} else {
			alnum = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if alnum && start < 0 {
			start = i
		}
		if !alnum && start >= 0 {
			a.emit(s[start:i], fn)
			start = -1
		}
	}
	if start >= 0 {
		a.emit(s[start:], fn)
	}
}

func (a analyzer) emit(tok string, fn func(string)) {
	if len(tok) > maxTokenLen {
		return
	}
	tok = lowerASCIIOrUnicode(tok)
	if a.stopwords && stopwords[tok] {
		return
	}
	if a.stem {
		tok = stem(tok)
	}
	if tok != "" {
		fn(tok)
	}
}

func lowerASCIIOrUnicode(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(s)
		}
	}
	return s
}

// stem is a light English suffix stripper. It is deliberately
// conservative: it never leaves a stem shorter than three octets.
func stem(w string) string {
	if len(w) <= 3 || keepWords[w] {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ization") && len(w) > 9:
		return w[:len(w)-5]
	case strings.HasSuffix(w, "ation") && len(w) > 7:
		return w[:len(w)-3]
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		return undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 5 && hasVowel(w[:len(w)-2]):
		return undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "e") && len(w) > 4:
		return w[:len(w)-1]
	}
	return w
}

// keepWords are left alone by the stemmer: stripping them would merge
// them with unrelated words ("news" and "new").
var keepWords = map[string]bool{"news": true, "series": true, "species": true, "always": true, "this": true, "analysis": true}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

// undouble turns "runn" into "run" and "plann" into "plan" (but keeps
// "ll", "ss" and "zz", as in "spell", "access", "buzz").
func undouble(s string) string {
	n := len(s)
	if n >= 4 && s[n-1] == s[n-2] && !strings.ContainsRune("aeiouylsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}
