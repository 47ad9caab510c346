package scoring

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Text analysis shared by documents and queries:
//
//  1. Unicode NFKC normalization, so that full-width, compatibility and
//     composed forms ("ＡＩ", "ﬁle", "é" as e + U+0301) meet their
//     ordinary spelling;
//  2. lower case, split on anything that is not a letter, digit or
//     combining mark;
//  3. in scripts written without spaces between words (Han, Hiragana,
//     Katakana, Hangul, Thai, Lao, Khmer, Myanmar) every two adjacent
//     characters form a term (a lone character is a term on its own), so
//     that "翻译文档" and "翻译" share "翻译" without a dictionary;
//  4. English stopwords dropped, tokens longer than maxTokenLen dropped;
//     in a query, also the words that only greet or ask politely
//     (conversational), which name no need;
//  5. Snowball's English stemmer (Porter2) on ASCII words, so that
//     "translator", "translating" and "translation" meet on "translat";
//     then the derivational pairs Porter2 keeps apart are joined
//     (derive): "classify" and "classification", "recognize" and
//     "recognition", "detect" and "detector";
//  6. a camel-case identifier ("AutoModelForSequenceClassification")
//     is a term, and so is each of its words (auto, model, sequenc,
//     classif), as tools and APIs are named that way.
//
// A card's fields are read sentence by sentence (eachSentence), and a
// sentence its field has already said adds nothing (AnalyzeDoc).

const maxTokenLen = 40

// wordSet is the set of the space-separated words of s.
func wordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var stopwords = wordSet(`a about above after again against all am an and any are as at be
because been before being below between both but by can could did do does doing down during each
few for from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not of off on once only or other our ours ourselves
out over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves please also get give tell show let`)

// conversational are the words a request says to greet or to ask
// politely: they name no need, so a query drops them (Model.Prepare,
// WithConversationalWords), while a card keeps them, since an agent may
// be named after one ("HeyGen", "Hello Bot"). The list holds only words
// that cannot be a need in a request ("greetings", "thank" and "dear"
// can: greeting cards, thank-you notes); it is matched before stemming,
// so "kindly" goes and "kind" stays. "please" and "could you" are
// stopwords already; "hi" stays, being also the ISO 639-1 code of
// Hindi ("translate to hi"), and dropping it gained nothing on MetaTool.
// On MetaTool, whose requests often open with "Hey"
// or "Hi", a query for "hey" otherwise finds HeyGen through the part of
// its name.
var conversational = wordSet(`hey hello hiya howdy kindly pls plz thx`)

// analyzer turns text into index terms.
type analyzer struct {
	stem      bool
	derive    bool // join derivational pairs after stemming (derive)
	stopwords bool
	chat      bool       // also drop the conversational words (queries only)
	camel     bool       // also emit the parts of camel-case identifiers
	stems     *stemCache // nil: stem every word afresh
}

// maxCachedStems bounds a stemCache. A corpus of 100,000 synthetic cards
// has 16,000 distinct terms; words past the bound are stemmed each time.
const maxCachedStems = 1 << 15

// stemCache remembers the stems of the words it has seen, up to
// maxCachedStems: the Snowball stemmer and derive allocate, and the
// words of cards repeat. One cache serves one analyzer, whose derive
// setting does not change once it is in use. Safe for concurrent use.
type stemCache struct {
	m sync.Map // word -> stem
	n atomic.Int64
}

// stem returns stem(w), derived (derive) when derived is set, and
// remembered.
func (c *stemCache) stem(w string, derived bool) string {
	if c == nil {
		return stemDerived(w, derived)
	}
	if v, ok := c.m.Load(w); ok {
		return v.(string)
	}
	st := stemDerived(w, derived)
	if c.n.Load() < maxCachedStems {
		if _, loaded := c.m.LoadOrStore(strings.Clone(w), st); !loaded {
			c.n.Add(1)
		}
	}
	return st
}

// Rune classes of the tokenizer.
const (
	runeSep    = iota // ends a token
	runeWord          // letter or digit of a script with spaces
	runeBigram        // letter of a script without spaces
	runeMark          // combining mark: continues the current token
)

// bigramScripts are the scripts written without spaces between words.
var bigramScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// classify returns the rune class of r. The ASCII case is a table
// lookup, small enough to be inlined in the tokenizer's loops.
func classify(r rune) int {
	if r < utf8.RuneSelf {
		return int(asciiClass[r])
	}
	return classifyUnicode(r)
}

// asciiClass holds the class of every ASCII rune: letters and digits are
// runeWord, the rest runeSep.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range t {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			t[r] = runeWord
		}
	}
	return t
}()

// classifyUnicode is classify for r past ASCII.
func classifyUnicode(r rune) int {
	switch {
	case unicode.In(r, bigramScripts...):
		if unicode.IsLetter(r) {
			return runeBigram
		}
		if unicode.Is(unicode.M, r) {
			return runeMark
		}
		return runeSep
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return runeWord
	case unicode.Is(unicode.M, r):
		return runeMark
	}
	return runeSep
}

// normalize returns s in NFKC, without copying ASCII text.
func normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return norm.NFKC.String(s)
		}
	}
	return s
}

// each calls fn for every term of s in order.
func (a analyzer) each(s string, fn func(term string)) { a.eachMemo(s, nil, fn) }

// eachMemo is each with memo, when not nil, remembering the term of
// every word seen (stemming a long text's words once each).
func (a analyzer) eachMemo(s string, memo map[string]string, fn func(term string)) {
	tokens(s, func(tok string, bigram bool) { a.token(tok, bigram, memo, fn) })
}

// token calls fn for every term of one token of tokens (steps 4 to 6).
func (a analyzer) token(tok string, bigram bool, memo map[string]string, fn func(term string)) {
	if bigram {
		a.emitRaw(tok, fn)
		return
	}
	a.emit(tok, memo, fn)
	if a.camel {
		a.camelParts(tok, memo, fn)
	}
}

// tokens calls fn for every token of s in order (steps 1 to 3 of the
// analysis): a word, as written, or with bigram set a character or
// bigram of a script without spaces. A word has no character of such a
// script and a bigram has one, so the two never meet.
func tokens(s string, fn func(tok string, bigram bool)) {
	s = normalize(s)
	start, class := -1, runeSep
	// For a run of a script without spaces: the offsets of its last two
	// characters and how many it has so far.
	prev, last, n := 0, 0, 0
	end := func(i int) {
		switch {
		case class == runeWord:
			fn(s[start:i], false)
		case class == runeBigram && n == 1:
			fn(s[start:i], true)
		case class == runeBigram && n > 1:
			fn(s[prev:i], true)
		}
		start, class, n = -1, runeSep, 0
	}
	for i, r := range s {
		c := classify(r)
		if c == runeMark {
			continue // part of the token before it, if any
		}
		if c != class && start >= 0 {
			end(i)
		}
		switch c {
		case runeWord:
			if start < 0 {
				start, class = i, runeWord
			}
		case runeBigram:
			if start < 0 {
				start, class = i, runeBigram
			}
			if n >= 2 {
				fn(s[prev:i], true)
			}
			prev, last = last, i
			if n == 0 {
				prev = i
			}
			n++
		}
	}
	if start >= 0 {
		end(len(s))
	}
}

// emit lower-cases a word, drops stopwords and stems it.
func (a analyzer) emit(tok string, memo map[string]string, fn func(string)) {
	if len(tok) > maxTokenLen {
		return
	}
	if memo != nil {
		t, ok := memo[tok]
		if !ok {
			t = a.term(tok)
			memo[tok] = t
		}
		if t != "" {
			fn(t)
		}
		return
	}
	if t := a.term(tok); t != "" {
		fn(t)
	}
}

// term is the index term of a word, "" for a stopword.
func (a analyzer) term(tok string) string {
	tok = lowerASCIIOrUnicode(tok)
	if a.stopwords && (stopwords[tok] || english.IsStopWord(tok)) || a.chat && conversational[tok] {
		return ""
	}
	if a.stem {
		tok = a.stems.stem(tok, a.derive)
	}
	return tok
}

// camelParts emits the parts of an identifier written in camel case
// ("AutoModelForSequenceClassification", "HTTPServer", "getURL") after
// the identifier itself, so that its words are found on their own.
func (a analyzer) camelParts(tok string, memo map[string]string, fn func(string)) {
	if len(tok) > maxTokenLen {
		return
	}
	isUp := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	isLow := func(c byte) bool { return 'a' <= c && c <= 'z' }
	start, parts := 0, 0
	for i := 1; i < len(tok); i++ {
		c, p := tok[i], tok[i-1]
		if c >= utf8.RuneSelf || p >= utf8.RuneSelf {
			return // ASCII identifiers only
		}
		// a boundary before an upper-case letter that follows a lower-case
		// one, or that starts a word after an acronym ("HTTPServer")
		if isUp(c) && (isLow(p) || i+1 < len(tok) && isUp(p) && isLow(tok[i+1])) {
			if parts == 0 {
				parts = 1
			}
			a.emit(tok[start:i], memo, fn)
			start = i
			parts++
		}
	}
	if parts > 0 {
		a.emit(tok[start:], memo, fn)
	}
}

// emitRaw emits a character or a bigram as it is (no case, no stem).
func (a analyzer) emitRaw(tok string, fn func(string)) {
	fn(tok)
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

// stem is Snowball's English stemmer (Porter2) for words of ASCII
// letters; other words are left as they are.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	return english.Stem(w, true)
}

// stemDerived is stem(w), then derive when derived is set.
func stemDerived(w string, derived bool) string {
	if derived {
		return derive(stem(w))
	}
	return stem(w)
}

// derivations are the Porter2 stem endings of English derivational
// forms that Porter2 leaves apart from the verb they derive from, each
// with the ending of that verb's stem. A task is asked for with a verb
// ("classify these photos", "recognize speech", "describe an image")
// and a capability is named with a noun ("image classification",
// "speech recognition", "image description", "object detector"), so
// without them the words that carry a request often miss the words that
// carry the card. Each pair is a rule of English morphology, not a word
// list:
//
//	-ify    / -ification  classifi, classif     -> classif
//	-ize    / -ition      recogn, recognit      -> recogn
//	-ibe    / -iption     describ, descript     -> describ
//	-yze    / -ysis       analyz, analysi       -> analyz
//	-arize  / -ary        summar, summari       -> summar
//	-esize  / -esis       synthes, synthesi     -> synthes
//	-ct     / -ctor       detect, detector      -> detect
//	-ss     / -ssor       compress, compressor  -> compress
//
// Only stems of minDerivedLen letters or more after the rewrite are
// rewritten, so that short words ("unit", "edit") keep their own term.
var derivations = [...]struct{ from, to string }{
	{"ifi", "if"}, {"nit", "n"}, {"ipt", "ib"}, {"ysi", "yz"},
	{"ari", "ar"}, {"esi", "es"}, {"ctor", "ct"}, {"ssor", "ss"},
}

const minDerivedLen = 5

// derive maps a Porter2 stem of lower-case ASCII letters to the stem of
// the verb it derives from (derivations); other terms are returned as
// they are.
func derive(st string) string {
	if len(st) < minDerivedLen {
		return st
	}
	for i := 0; i < len(st); i++ {
		if c := st[i]; c < 'a' || c > 'z' {
			return st
		}
	}
	for _, d := range derivations {
		if strings.HasSuffix(st, d.from) {
			if len(st)-len(d.from)+len(d.to) >= minDerivedLen {
				return st[:len(st)-len(d.from)] + d.to
			}
			return st
		}
	}
	return st
}
