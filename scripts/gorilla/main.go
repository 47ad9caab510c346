// Command gorilla converts Gorilla's APIBench (see
// ../shared/datasets/README.md) into the inputs of `adpnode bench
// discover`, in the format of scripts/metatool: one unsigned Agent Card
// per distinct api_name (cards.jsonl), one adp.discover request per
// instruction with only "query" set (queries.jsonl), and the labels as
// qrels (qrels.tsv: query_id, agent_id, relevance 1).
//
// Card: name api_name, description the API's description, one skill from
// domain (lower case, spaces as hyphens), one tool named after
// functionality whose description is api_call and whose input-schema
// properties are api_arguments (an object's keys, with their values as
// default and description; a list's items; a plain string as the one
// property "arguments"). The first document of an api_name wins. The
// instruction is the text between "###Instruction:" and "###Output" of
// an evaluation line's code.
//
//	go run ./scripts/gorilla [-data ../shared/datasets/gorilla] [-set huggingface] [-out scripts/out/gorilla-huggingface]
//	go run ./cmd/adpnode bench discover --cards scripts/out/gorilla-huggingface/cards.jsonl \
//	    --queries scripts/out/gorilla-huggingface/queries.jsonl --qrels scripts/out/gorilla-huggingface/qrels.tsv
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/adpnode/adpnode/scripts/internal/benchfmt"
)

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "datasets", "gorilla"), "Gorilla dataset directory")
	set := flag.String("set", "huggingface", "API set: huggingface or torchhub")
	out := flag.String("out", "", "output directory (default scripts/out/gorilla-SET)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join("scripts", "out", "gorilla-"+*set)
	}
	if err := convert(*data, *set, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gorilla:", err)
		os.Exit(1)
	}
}

type apiDoc struct {
	Domain        string          `json:"domain"`
	Functionality any             `json:"functionality"` // a string, sometimes a list
	APIName       string          `json:"api_name"`
	APICall       string          `json:"api_call"`
	APIArguments  json.RawMessage `json:"api_arguments"`
	Description   string          `json:"description"`
}

type evalLine struct {
	Code    string `json:"code"`
	APIData struct {
		APIName string `json:"api_name"`
	} `json:"api_data"`
}

type property struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Default     any    `json:"default,omitempty"`
}

type schema struct {
	Type       string              `json:"type"`
	Properties map[string]property `json:"properties,omitempty"`
}

type tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema schema `json:"input_schema"`
}

type card struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Skills      []string `json:"skills,omitempty"`
	Tools       []tool   `json:"tools"`
}

// agentID names the card of an api_name.
func agentID(set, name string) string {
	return "agent://gorilla-" + set + "/" + url.PathEscape(name)
}

// skill turns a domain into a tag: lower case, runs of anything but
// letters and digits as one hyphen.
func skill(domain string) string {
	f := strings.FieldsFunc(strings.ToLower(domain), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return strings.Join(f, "-")
}

// properties turns api_arguments into input-schema properties.
func properties(raw json.RawMessage) map[string]property {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	props := make(map[string]property)
	text := func(x any) string {
		if s, ok := x.(string); ok {
			return s
		}
		b, _ := json.Marshal(x)
		return string(b)
	}
	switch a := v.(type) {
	case map[string]any:
		for k, x := range a {
			props[k] = property{Type: "string", Description: text(x), Default: x}
		}
	case []any:
		for _, x := range a {
			if s := strings.TrimSpace(text(x)); s != "" {
				props[s] = property{Type: "string"}
			}
		}
	case string:
		if s := strings.TrimSpace(a); s != "" && s != "N/A" {
			props["arguments"] = property{Type: "string", Description: s}
		}
	}
	if len(props) == 0 {
		return nil
	}
	return props
}

// functionality is the tool name: the string, or a list's strings
// joined by ", ".
func functionality(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

// instruction returns the text between "###Instruction:" and "###Output".
func instruction(code string) string {
	_, rest, ok := strings.Cut(code, "###Instruction:")
	if !ok {
		return ""
	}
	ins, _, _ := strings.Cut(rest, "###Output")
	return strings.TrimSpace(ins)
}

func convert(data, set, out string) error {
	cards, names, err := readCards(filepath.Join(data, set+"_api.jsonl"), set)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := benchfmt.WriteLines(filepath.Join(out, "cards.jsonl"), cards); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(data, set+"_eval.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	var queries []any
	var qrels strings.Builder
	skipped := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e evalLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("%s_eval.json:%d: %w", set, n, err)
		}
		ins := instruction(e.Code)
		if ins == "" || !names[e.APIData.APIName] {
			skipped++
			continue
		}
		qid := fmt.Sprintf("g%04d", n)
		queries = append(queries, benchfmt.NewQuery(qid, ins))
		fmt.Fprintf(&qrels, "%s\t%s\t1\n", qid, agentID(set, e.APIData.APIName))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := benchfmt.WriteLines(filepath.Join(out, "queries.jsonl"), queries); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "qrels.tsv"), []byte(qrels.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d cards, %d queries (%d skipped: no instruction or unknown api_name) written to %s\n", len(cards), len(queries), skipped, out)
	return nil
}

// readCards returns one card per distinct api_name, in file order, and
// the set of names.
func readCards(path, set string) ([]any, map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	names := make(map[string]bool)
	var cards []any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var d apiDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if d.APIName == "" || names[d.APIName] {
			continue
		}
		names[d.APIName] = true
		c := card{ID: agentID(set, d.APIName), Name: d.APIName, Description: strings.TrimSpace(d.Description)}
		if s := skill(d.Domain); s != "" {
			c.Skills = []string{s}
		}
		c.Tools = []tool{{Name: functionality(d.Functionality), Description: d.APICall,
			InputSchema: schema{Type: "object", Properties: properties(d.APIArguments)}}}
		cards = append(cards, c)
	}
	return cards, names, sc.Err()
}
