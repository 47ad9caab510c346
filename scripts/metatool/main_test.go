package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	files := map[string]string{
		"plugin_des.json":              `{"WeatherTool": "Forecasts.", "vio_com": "Hotels."}`,
		"plugin_info.json":             `[{"name_for_model": "vio_com", "name_for_human": "Vio.com", "description_for_model": "Search hotels.", "description_for_human": "x"}]`,
		"all_clean_data.csv":           "Query,Tool\n\"Will it rain, today?\",WeatherTool\nBook a hotel,vio_com\n",
		"multi_tool_query_golden.json": `[{"query": "Hotel and weather", "tool": ["vio_com", "WeatherTool"]}]`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(data, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := convert(data, out); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cards := read("cards.jsonl")
	for _, want := range []string{
		`{"id":"agent://metatool/WeatherTool","name":"Weather Tool","description":"Forecasts."}`,
		`{"id":"agent://metatool/vio_com","name":"Vio.com","description":"Hotels. Search hotels."}`,
	} {
		if !strings.Contains(cards, want) {
			t.Errorf("cards lack %s:\n%s", want, cards)
		}
	}
	if q := read("queries.jsonl"); !strings.Contains(q, `{"id":"s00001","request":{"query":"Will it rain, today?"}}`) || strings.Count(q, "\n") != 3 {
		t.Errorf("queries:\n%s", q)
	}
	want := "s00001\tagent://metatool/WeatherTool\t1\ns00002\tagent://metatool/vio_com\t1\nm001\tagent://metatool/vio_com\t1\nm001\tagent://metatool/WeatherTool\t1\n"
	if q := read("qrels.tsv"); q != want {
		t.Errorf("qrels:\n%s\nwant\n%s", q, want)
	}
	// A label that names no plugin is an error.
	if err := os.WriteFile(filepath.Join(data, "all_clean_data.csv"), []byte("Query,Tool\nq,Nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := convert(data, out); err == nil {
		t.Error("unknown label accepted")
	}
}
