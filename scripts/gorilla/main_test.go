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
		"torchhub_api.jsonl": `{"domain": "Image Classification", "functionality": "Classify", "api_name": "resnet", "api_call": "torch.hub.load('pytorch/vision', 'resnet18')", "api_arguments": {"pretrained": "True"}, "description": "Residual network."}
{"domain": "Other", "functionality": "Dup", "api_name": "resnet", "api_call": "x", "api_arguments": [], "description": "Second copy."}
{"domain": "Object Detection", "functionality": "Detect", "api_name": "yolo", "api_call": "y", "api_arguments": ["repo", "model"], "description": "You only look once."}
`,
		"torchhub_eval.json": `{"code": "###Instruction: Label my photos.\n###Output: <<<domain>>>: x", "api_data": {"api_name": "resnet"}}
{"code": "###Instruction: Find cars in a frame.\n###Output: y", "api_data": {"api_name": "yolo"}}
{"code": "no instruction here", "api_data": {"api_name": "yolo"}}
{"code": "###Instruction: Unknown.\n###Output: y", "api_data": {"api_name": "missing"}}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(data, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := convert(data, "torchhub", out); err != nil {
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
		`{"id":"agent://gorilla-torchhub/resnet","name":"resnet","description":"Residual network.","skills":["image-classification"],"tools":[{"name":"Classify","description":"torch.hub.load('pytorch/vision', 'resnet18')","input_schema":{"type":"object","properties":{"pretrained":{"type":"string","description":"True","default":"True"}}}}]}`,
		`"properties":{"model":{"type":"string"},"repo":{"type":"string"}}`,
	} {
		if !strings.Contains(cards, want) {
			t.Errorf("cards lack %s:\n%s", want, cards)
		}
	}
	if n := strings.Count(cards, "\n"); n != 2 {
		t.Errorf("%d cards, want 2 (one per api_name)", n)
	}
	queries := read("queries.jsonl")
	want := `{"id":"g0001","request":{"query":"Label my photos."}}` + "\n" + `{"id":"g0002","request":{"query":"Find cars in a frame."}}` + "\n"
	if queries != want {
		t.Errorf("queries:\n%s\nwant:\n%s", queries, want)
	}
	qrels := read("qrels.tsv")
	if want := "g0001\tagent://gorilla-torchhub/resnet\t1\ng0002\tagent://gorilla-torchhub/yolo\t1\n"; qrels != want {
		t.Errorf("qrels:\n%s\nwant:\n%s", qrels, want)
	}
}
