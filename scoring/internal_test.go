package scoring

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"
)

// TestStem checks that the forms of one word meet on one stem and that
// unrelated words stay apart.
func TestStem(t *testing.T) {
	groups := [][]string{
		{"translate", "translating", "translated", "translation", "translations", "translator"},
		{"summarize", "summarization", "summarizing"},
		{"query", "queries"}, {"images", "image", "imaging"},
		{"running", "run"}, {"planned", "plan"}, {"booking", "book"},
		{"news"}, {"new"}, {"analysis"}, {"bus"}, {"class"},
		{"speed"}, {"string"}, {"go"}, {"matches", "match"},
	}
	seen := make(map[string]string)
	for _, g := range groups {
		want := stem(g[0])
		for _, w := range g[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q as stem(%q)", w, got, want, g[0])
			}
		}
		if other, dup := seen[want]; dup {
			t.Errorf("%q and %q share the stem %q", g[0], other, want)
		}
		seen[want] = g[0]
	}
}

// TestDerive checks that the verb a task is asked with meets the noun a
// capability is named with (derivations), that short and unrelated
// words keep their own term, and that the pairs stay apart without it.
func TestDerive(t *testing.T) {
	on := analyzer{stem: true, derive: true}
	off := analyzer{stem: true}
	term := func(a analyzer, w string) string { return a.term(w) }
	groups := [][]string{
		{"classify", "classifies", "classified", "classification", "classifications", "classifier"},
		{"recognize", "recognizing", "recognition"},
		{"describe", "description", "descriptions"},
		{"analyze", "analyzing", "analysis"},
		{"summarize", "summarization", "summary", "summaries"},
		{"synthesize", "synthesis"},
		{"detect", "detection", "detector", "detectors"},
		{"compress", "compression", "compressor"},
		{"identify", "identification"},
		{"transcribe", "transcription"},
		{"unit"}, {"edit"}, {"define"}, {"script"}, {"translate"}, {"image"},
	}
	seen := make(map[string]string)
	for _, g := range groups {
		want := term(on, g[0])
		for _, w := range g[1:] {
			if got := term(on, w); got != want {
				t.Errorf("term(%q) = %q, want %q as term(%q)", w, got, want, g[0])
			}
		}
		if other, dup := seen[want]; dup {
			t.Errorf("%q and %q share the term %q", g[0], other, want)
		}
		seen[want] = g[0]
	}
	for _, pair := range [][2]string{{"classify", "classification"}, {"recognize", "recognition"}, {"detect", "detector"}} {
		if term(off, pair[0]) == term(off, pair[1]) {
			t.Errorf("without derivation %q and %q share a term: the test no longer tests derive", pair[0], pair[1])
		}
	}
	if got := derive("été"); got != "été" {
		t.Errorf("derive(été) = %q", got)
	}
}

func TestAnalyzer(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Can you Translate THE invoices, to_German? (ÉTÉ) 42", []string{"translat", "invoic", "german", "été", "42"}},
		{"ＡＩ translator", []string{"ai", "translat"}},                           // full width (NFKC)
		{"cafe\u0301", []string{"café"}},                                        // composed (NFKC)
		{"翻译文档", []string{"翻译", "译文", "文档"}},                                    // Han bigrams
		{"把这个翻译成英文 please", []string{"把这", "这个", "个翻", "翻译", "译成", "成英", "英文"}}, // then a stopword
		{"日本語のテキスト", []string{"日本", "本語", "語の", "のテ", "テキ", "キス", "スト"}},
		{"한국어 번역", []string{"한국", "국어", "번역"}},
		{"猫 PDF文件", []string{"猫", "pdf", "文件"}},
		{"AutoModelForSequenceClassification HTTPServer getURL", []string{"automodelforsequenceclassif", "auto", "model", "sequenc", "classif",
			"httpserver", "http", "server", "geturl", "url"}}, // "get" is a stopword
	}
	for _, tt := range tests {
		var got []string
		analyzer{stem: true, stopwords: true, camel: true}.each(tt.in, func(s string) { got = append(got, s) })
		if !slices.Equal(got, tt.want) {
			t.Errorf("terms of %q = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFactors(t *testing.T) {
	c := defaultConfig()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rep := []struct {
		name string
		s    Signals
		want float64
	}{
		{"no history, cold start", Signals{}, 0.5 + 0.2},
		{"all good, cold", Signals{Calls: 8, Successes: 8}, math.Min(1, 9.0/10+0.2)},
		{"all good, warm", Signals{Calls: 8, Successes: 8, CompletedTasks: 5}, 9.0 / 10},
		{"all failed, warm", Signals{Calls: 8, Failures: 8, CompletedTasks: 9}, 1.0 / 10},
		{"failures from calls", Signals{Calls: 4, Successes: 1, CompletedTasks: 9}, 2.0 / 6},
		{"negative counts", Signals{Successes: -3, Failures: -1, CompletedTasks: 9}, 0.5},
	}
	for _, tt := range rep {
		if got := c.Reputation(tt.s); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("reputation %s = %v, want %v", tt.name, got, tt.want)
		}
	}
	rat := []struct {
		s    Signals
		want float64
	}{
		{Signals{}, 0.5},
		{Signals{RatingCount: 1, RatingSum: 5}, 2.0 / 3},
		{Signals{RatingCount: 1, RatingSum: 1}, 1.0 / 3},
		{Signals{RatingCount: 98, RatingSum: 98 * 5}, 99.0 / 100},
		{Signals{RatingCount: 2, RatingSum: 1000}, 3.0 / 4}, // clamped to 5 stars
	}
	for _, tt := range rat {
		if got := Rating(tt.s); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Rating(%+v) = %v, want %v", tt.s, got, tt.want)
		}
	}
	avl := []struct {
		name    string
		s       Signals
		maxConc int32
		status  uint8
		want    float64
	}{
		{"never seen", Signals{}, 0, statusActive, 0},
		{"seen recently", Signals{LastSeen: now.Add(-time.Minute)}, 0, statusActive, 1},
		{"seen long ago", Signals{LastSeen: now.Add(-time.Hour)}, 0, statusActive, 0},
		{"below limit", Signals{LastSeen: now, ActiveTasks: 2}, 3, statusActive, 1},
		{"at limit", Signals{LastSeen: now, ActiveTasks: 3}, 3, statusActive, 0},
		{"suspended", Signals{LastSeen: now}, 0, statusSuspended, 0},
		{"inactive", Signals{LastSeen: now}, 0, statusInactive, 0},
		{"testing", Signals{LastSeen: now}, 0, statusTesting, 1},
	}
	for _, tt := range avl {
		if got := c.Availability(tt.s, tt.maxConc, tt.status, now); got != tt.want {
			t.Errorf("availability %s = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !Overloaded(Signals{ActiveTasks: 3}, 3) || Overloaded(Signals{ActiveTasks: 2}, 3) || Overloaded(Signals{ActiveTasks: 99}, 0) {
		t.Error("overloaded does not follow ADP 5.3")
	}
	n := now.UnixNano()
	hour := int64(time.Hour)
	fr := []struct {
		indexed, expires int64
		want             float64
	}{
		{0, 0, 1},
		{n - hour, 0, 1},
		{n - hour, n + hour, 0.5},
		{n - hour, n, 0},
		{n - 2*hour, n - hour, 0},
		{n, n + hour, 1},
	}
	for _, tt := range fr {
		if got := Freshness(tt.indexed, tt.expires, n); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Freshness(%d, %d) = %v, want %v", tt.indexed-n, tt.expires-n, got, tt.want)
		}
	}
}

// TestRepeatedSentence checks that a sentence a field says again, in the
// same words, adds no term frequency and no length, that other fields
// and the tool passages keep theirs, and that reading a text sentence by
// sentence yields the terms of the whole.
func TestRepeatedSentence(t *testing.T) {
	m, err := NewModel()
	if err != nil {
		t.Fatal(err)
	}
	terms := func(d Doc) (map[string]uint16, [NumFields]uint16) {
		dt := m.AnalyzeDoc(&d, nil)
		tf := make(map[string]uint16)
		for _, x := range dt.Terms {
			tf[x.Term] = x.TF
		}
		return tf, dt.Lens
	}
	once := Doc{ID: "a", Name: "Invoice translator", Description: "Translate invoices into German. Fast."}
	tests := []struct {
		name string
		desc string
	}{
		{"repeated at the end", "Translate invoices into German. Fast. Translate invoices into German."},
		{"case and spacing aside", "Translate invoices into German. Fast.\ntranslate  INVOICES into german!"},
		{"twice in a row", "Translate invoices into German. Translate invoices into German. Fast."},
	}
	wantTF, wantLens := terms(once)
	for _, tt := range tests {
		d := once
		d.Description = tt.desc
		tf, lens := terms(d)
		if !maps.Equal(tf, wantTF) || lens != wantLens {
			t.Errorf("%s: terms %v lens %v, want %v %v", tt.name, tf, lens, wantTF, wantLens)
		}
	}
	// A sentence said once in each of two fields counts in both; said
	// twice in one field it does not count twice there.
	d := Doc{ID: "b", Name: "Translate invoices", Description: "Translate invoices. Translate invoices."}
	tf, lens := terms(d)
	if lens[fieldName] != 2 || lens[fieldDesc] != 2 {
		t.Errorf("lens %v: want 2 name and 2 description terms", lens)
	}
	if v := tf["translat"]; (v>>(TFBits*fieldName))&TFMax != 1 || (v>>(TFBits*fieldDesc))&TFMax != 1 {
		t.Errorf("tf of translat %#x: want 1 in the name and 1 in the description", v)
	}
	// Two tools with the same description: once in the tools field, and
	// each tool's passage keeps it.
	d = Doc{ID: "c", Tools: []ToolText{{Name: "alpha", Description: "Returns a JSON report."}, {Name: "beta", Description: "Returns a JSON report."}}}
	dt := m.AnalyzeDoc(&d, nil)
	if dt.Lens[fieldTools] != 5 { // alpha, return, json, report, beta
		t.Errorf("tools field length %d, want 5", dt.Lens[fieldTools])
	}
	for i, ex := range dt.Examples {
		if ex.N != 4 {
			t.Errorf("tool passage %d has %d terms, want 4", i, ex.N)
		}
	}
	// WithRepeatedSentences counts them again.
	rm, err := NewModel(WithRepeatedSentences(true))
	if err != nil {
		t.Fatal(err)
	}
	d = Doc{ID: "d", Description: "Translate invoices. Translate invoices."}
	if dt := rm.AnalyzeDoc(&d, nil); dt.Lens[fieldDesc] != 4 {
		t.Errorf("with repeated sentences: description length %d, want 4", dt.Lens[fieldDesc])
	}
	// Sentences split only between tokens.
	text := "Runs v1.5 on image.jpg. Next step!\nThen 翻译。文档 done?"
	var whole, parts []string
	m.an.each(text, func(s string) { whole = append(whole, s) })
	eachSentence(text, func(s string) { m.an.each(s, func(s string) { parts = append(parts, s) }) })
	if !slices.Equal(whole, parts) {
		t.Errorf("terms by sentence %q, want %q", parts, whole)
	}
}
