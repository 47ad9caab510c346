package eval_test

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adpnode/adpnode/scoring/eval"
)

func TestMetrics(t *testing.T) {
	rels := map[string]int{"a": 1, "b": 1, "z": 0}
	tests := []struct {
		ranked       []string
		ndcg, recall float64
	}{
		{[]string{"a", "b", "c"}, 1, 1},
		{[]string{"c", "a"}, (1 / math.Log2(3)) / (1 + 1/math.Log2(3)), 0.5},
		{[]string{"z", "c"}, 0, 0},
		{nil, 0, 0},
	}
	for _, tt := range tests {
		if got := eval.NDCG(tt.ranked, rels, 10); math.Abs(got-tt.ndcg) > 1e-12 {
			t.Errorf("NDCG(%v) = %v, want %v", tt.ranked, got, tt.ndcg)
		}
		if got := eval.Recall(tt.ranked, rels, 10); got != tt.recall {
			t.Errorf("Recall(%v) = %v, want %v", tt.ranked, got, tt.recall)
		}
	}
	if got := eval.Recall([]string{"c", "a", "b"}, rels, 2); got != 0.5 {
		t.Errorf("Recall@2 = %v", got)
	}
	m := eval.Evaluate(map[string][]string{"q1": {"a"}, "q2": {"x"}}, eval.Qrels{"q1": {"a": 1}, "q2": {"y": 1}, "q3": {"w": 0}})
	if m.Queries != 2 || m.NDCG10 != 0.5 || m.Recall10 != 0.5 {
		t.Errorf("Evaluate = %+v", m)
	}
}

func TestReadQrels(t *testing.T) {
	q, err := eval.ReadQrels(strings.NewReader("# comment\nq1\ta\t1\n\nq1 0 b 2\nq2\tc\t0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q["q1"]["a"] != 1 || q["q1"]["b"] != 2 || q["q2"]["c"] != 0 || len(q) != 2 {
		t.Fatalf("qrels %v", q)
	}
	for _, bad := range []string{"q1\ta\n", "q1\ta\tx\n"} {
		if _, err := eval.ReadQrels(strings.NewReader(bad)); !errors.Is(err, eval.ErrFormat) {
			t.Errorf("ReadQrels(%q) = %v", bad, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if eval.Percentile(d, 50) != 5 || eval.Percentile(d, 99) != 10 || eval.Percentile(d, 0) != 1 || eval.Percentile(nil, 50) != 0 {
		t.Errorf("percentiles of %v wrong", d)
	}
}

func TestThreadCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := eval.ThreadCPU()
	if c0 < 0 {
		return // not available on this OS
	}
	x := 0
	for i := range 10_000_000 {
		x ^= i
	}
	if c1 := eval.ThreadCPU(); c1 <= c0 {
		t.Fatalf("thread CPU time did not advance: %v -> %v (%d)", c0, c1, x)
	}
}
