package scoring

import (
	"math"
	"testing"
	"time"
)

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"translate", "translat"}, {"translating", "translat"}, {"translated", "translat"},
		{"translation", "translat"}, {"translations", "translat"},
		{"summarize", "summariz"}, {"summarization", "summariz"}, {"summarizing", "summariz"},
		{"queries", "query"}, {"images", "imag"}, {"imaging", "imag"},
		{"running", "run"}, {"planned", "plan"}, {"booking", "book"},
		{"news", "news"}, {"analysis", "analysis"}, {"bus", "bus"}, {"class", "class"},
		{"speed", "speed"}, {"string", "string"}, {"go", "go"}, {"matches", "match"},
	}
	for _, tt := range tests {
		if got := stem(tt.in); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnalyzer(t *testing.T) {
	var got []string
	analyzer{stem: true, stopwords: true}.each("Can you Translate THE invoices, to_German? (ÉTÉ) 42", func(s string) { got = append(got, s) })
	want := []string{"translat", "invoic", "german", "été", "42"}
	if len(got) != len(want) {
		t.Fatalf("terms = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("terms = %q, want %q", got, want)
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
