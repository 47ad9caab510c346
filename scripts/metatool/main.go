// Command metatool converts the MetaTool benchmark (ICLR 2024; see
// ../shared/datasets/README.md) into the inputs of `adpnode bench
// discover`: one unsigned Agent Card per plugin key (cards.jsonl), one
// adp.discover request per labelled query with only "query" set
// (queries.jsonl: 20,614 single-tool queries from all_clean_data.csv and
// 497 two-tool queries from multi_tool_query_golden.json), and the labels
// as qrels (qrels.tsv: query_id, agent_id, relevance 1).
//
// Card name: the manifest's name_for_human whose name_for_model equals the
// key, else the key split into words; description: plugin_des.json's
// sentence plus the manifest's description_for_model. No skills, tools or
// examples: the benchmark measures natural-language ranking.
//
//	go run ./scripts/metatool [-data ../shared/datasets/metatool] [-out scripts/out/metatool]
//	go run ./cmd/adpnode bench discover --cards scripts/out/metatool/cards.jsonl \
//	    --queries scripts/out/metatool/queries.jsonl --qrels scripts/out/metatool/qrels.tsv
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/adpnode/adpnode/scripts/internal/benchfmt"
)

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "datasets", "metatool"), "MetaTool dataset directory")
	out := flag.String("out", filepath.Join("scripts", "out", "metatool"), "output directory")
	flag.Parse()
	if err := convert(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "metatool:", err)
		os.Exit(1)
	}
}

type manifest struct {
	NameForModel        string `json:"name_for_model"`
	NameForHuman        string `json:"name_for_human"`
	DescriptionForModel string `json:"description_for_model"`
}

type card struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// agentID names the card of a plugin key.
func agentID(key string) string { return "agent://metatool/" + url.PathEscape(key) }

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// words splits "FinanceTool" into "Finance Tool" and "stellar_explorer"
// into "stellar explorer".
func words(key string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range key {
		switch {
		case r == '_' || r == '-':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func convert(data, out string) error {
	var des map[string]string
	if err := readJSON(filepath.Join(data, "plugin_des.json"), &des); err != nil {
		return err
	}
	var infos []manifest
	if err := readJSON(filepath.Join(data, "plugin_info.json"), &infos); err != nil {
		return err
	}
	byModel := make(map[string]manifest, len(infos))
	for _, m := range infos {
		if _, dup := byModel[m.NameForModel]; !dup {
			byModel[m.NameForModel] = m
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	keys := make([]string, 0, len(des))
	for k := range des {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var cards []any
	for _, k := range keys {
		c := card{ID: agentID(k), Name: words(k), Description: strings.TrimSpace(des[k])}
		if m, ok := byModel[k]; ok {
			if m.NameForHuman != "" {
				c.Name = m.NameForHuman
			}
			if d := strings.TrimSpace(m.DescriptionForModel); d != "" {
				c.Description += " " + d
			}
		}
		cards = append(cards, c)
	}
	if err := benchfmt.WriteLines(filepath.Join(out, "cards.jsonl"), cards); err != nil {
		return err
	}

	var queries []any
	var qrels strings.Builder
	label := func(qid, key string) error {
		if _, ok := des[key]; !ok {
			return fmt.Errorf("query %s: label %q is not a plugin key", qid, key)
		}
		fmt.Fprintf(&qrels, "%s\t%s\t1\n", qid, agentID(key))
		return nil
	}
	f, err := os.Open(filepath.Join(data, "all_clean_data.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	if _, err := r.Read(); err != nil { // header Query,Tool
		return err
	}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(rec) != 2 {
			return fmt.Errorf("all_clean_data.csv row %d: %d fields", n, len(rec))
		}
		qid := fmt.Sprintf("s%05d", n)
		queries = append(queries, benchfmt.NewQuery(qid, rec[0]))
		if err := label(qid, rec[1]); err != nil {
			return err
		}
	}
	var multi []struct {
		Query string   `json:"query"`
		Tool  []string `json:"tool"`
	}
	if err := readJSON(filepath.Join(data, "multi_tool_query_golden.json"), &multi); err != nil {
		return err
	}
	for n, m := range multi {
		qid := fmt.Sprintf("m%03d", n+1)
		queries = append(queries, benchfmt.NewQuery(qid, m.Query))
		for _, k := range m.Tool {
			if err := label(qid, k); err != nil {
				return err
			}
		}
	}
	if err := benchfmt.WriteLines(filepath.Join(out, "queries.jsonl"), queries); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "qrels.tsv"), []byte(qrels.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d cards, %d queries written to %s\n", len(cards), len(queries), out)
	return nil
}
