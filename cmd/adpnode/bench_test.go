package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runBench(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newBenchCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append([]string{"discover"}, args...))
	err := cmd.Execute()
	return out.String(), err
}

func TestBenchDiscoverFiles(t *testing.T) {
	dir := t.TempDir()
	cards := `{"id": "agent://a", "name": "Lingua Translator", "description": "Translates documents into German", "skills": ["nlp/translation"]}
{"id": "agent://b", "name": "Weather Now", "description": "Weather forecasts for any city", "skills": ["analytical/forecasting"]}

{"id": "agent://c", "name": "Receipt Reader", "description": "Reads scanned receipts", "skills": ["vision/ocr"]}
`
	queries := `{"id": "q1", "request": {"query": "translate my document to german"}}
{"id": "q2", "request": {"query": "will it rain tomorrow in the city", "limit": 1}}
{"id": "q3", "request": {"tags": ["vision"]}}
`
	qrels := "q1\tagent://a\t1\nq2\tagent://b\t1\nq3\tagent://b\t1\n"
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := filepath.Join(dir, "run.tsv")
	out, err := runBench(t, "--cards", write("cards.jsonl", cards), "--queries", write("queries.jsonl", queries),
		"--qrels", write("qrels.tsv", qrels), "--run", run)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(out)
	// q1 and q2 are ranked first, q3 finds only the wrong agent.
	want := fmt.Sprintf("nDCG@10 %.4f  Recall@10 %.4f  Recall@50 %.4f", 2.0/3, 2.0/3, 2.0/3)
	if !strings.Contains(out, "cards: 3 indexed") || !strings.Contains(out, want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
	b, err := os.ReadFile(run)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^q1 Q0 agent://a 1 [0-9.]+ adpnode$`)
	first := strings.SplitN(string(b), "\n", 2)[0]
	if !line.MatchString(first) {
		t.Fatalf("run file starts with %q", first)
	}
	// --depth raises a request's limit of 1.
	if n := strings.Count(string(b), "q2 Q0 "); n != 1 {
		t.Logf("q2 has %d lines", n)
	}

	// --baseline ranks the same queries with plain BM25 as well, which
	// finds q1 and q2 by their words and nothing for the tag-only q3.
	out, err = runBench(t, "--cards", write("cb.jsonl", cards), "--queries", write("qb.jsonl", queries),
		"--qrels", write("rb.tsv", qrels), "--baseline")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "full ranker on 3 judged queries: "+want) || !strings.Contains(out, "BM25 baseline on 3 judged queries: "+want) {
		t.Fatalf("output lacks both rankings:\n%s", out)
	}

	bad := write("bad.jsonl", `{"id": "q1", "request": {"limit": 1000}}`)
	if _, err := runBench(t, "--cards", write("c2.jsonl", cards), "--queries", bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Fatalf("invalid request accepted or error without position: %v", err)
	}
	if _, err := runBench(t, "--cards", write("c3.jsonl", "{not json}\n"), "--queries", bad); err == nil {
		t.Fatal("malformed card accepted")
	}
	if _, err := runBench(t); err == nil {
		t.Fatal("no input accepted")
	}
}

func TestBenchDiscoverSynthetic(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	out, err := runBench(t, "--synthetic", "2000", "--queries-per-kind", "20", "--naive-queries-per-kind", "10", "--cpuprofile", prof)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no CPU profile written: %v", err)
	}
	t.Log(out)
	for _, want := range []string{"index build:", "B/card", "tag-only", "text-only", "mixed", "top-10 agreement index vs naive: 30/30"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
