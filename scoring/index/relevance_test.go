package index_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adpnode/adpnode/scoring"
)

// relevance runs q on both engines over docs and returns the index's
// result (the engines must agree).
func relevance(t *testing.T, docs []scoring.Doc, q scoring.Query) scoring.Result {
	t.Helper()
	x, nv := engines(t, docs)
	return search(t, x, nv, q, nil)
}

func TestChineseQuery(t *testing.T) {
	docs := []scoring.Doc{
		{ID: "zh", Name: "文档助手", Description: "把中文文档翻译成英文和日文。"},
		{ID: "ja", Name: "翻訳", Description: "日本語のテキストを要約します。"},
		{ID: "en", Name: "Translator", Description: "Translates documents."},
	}
	for _, text := range []string{"翻译文档", "请帮我翻译一份文档", "中文翻译"} {
		r := relevance(t, docs, scoring.Query{Text: text})
		if len(r.Hits) == 0 || r.Hits[0].ID != "zh" {
			t.Errorf("%q: hits %v, want zh first", text, ids(r.Hits))
		}
	}
}

func TestStemmedForms(t *testing.T) {
	docs := []scoring.Doc{
		{ID: "tr", Name: "Contract translator", Description: "A translator for legal contracts."},
		{ID: "sum", Name: "Summarizer", Description: "Summarizes long reports."},
	}
	for _, text := range []string{"translating", "translation of a contract", "Translators"} {
		r := relevance(t, docs, scoring.Query{Text: text})
		if len(r.Hits) == 0 || r.Hits[0].ID != "tr" {
			t.Errorf("%q: hits %v, want tr first", text, ids(r.Hits))
		}
	}
}

// TestLongQuery sends an 18 KB task description whose only words that
// any card has come at its end: it is scored on its most informative
// terms and says that it dropped the others.
func TestLongQuery(t *testing.T) {
	docs := append(corpus(), scoring.Doc{ID: "inv", Name: "Invoice reader", Description: "Transcribes scanned invoices into ledger entries."})
	var b strings.Builder
	for i := 0; b.Len() < 18*1024; i++ {
		fmt.Fprintf(&b, "Step %d: keep record r%d of batch b%d until the auditors sign off. ", i, i, i%97)
	}
	b.WriteString("Then transcribe every scanned invoice into the ledger.")
	text := b.String()
	if len(text) < 18*1024 {
		t.Fatalf("query is %d octets", len(text))
	}
	r := relevance(t, docs, scoring.Query{Text: text})
	if len(r.Hits) == 0 || r.Hits[0].ID != "inv" {
		t.Errorf("hits %v, want inv first", ids(r.Hits))
	}
	if len(r.Warnings) == 0 {
		t.Error("no warning for a query whose terms were dropped")
	}
}

// TestNestedSchemaText finds an agent by words that only a nested
// property description and an enum value of a tool's input schema carry.
func TestNestedSchemaText(t *testing.T) {
	schema := `{"type": "object", "properties": {"options": {"type": "object", "properties": {
		"unit": {"type": "string", "description": "Temperature scale of the forecast", "enum": ["celsius", "fahrenheit"]},
		"days": {"type": "array", "items": {"type": "integer", "title": "Horizon"}}}}}}`
	docs := []scoring.Doc{
		{ID: "wx", Name: "Weather", Description: "Forecasts.", Tools: []scoring.ToolText{
			{Name: "forecast", Description: "Returns a forecast.", InputProps: scoring.SchemaText([]byte(schema))}}},
		{ID: "news", Name: "News", Description: "Reads the news."},
	}
	for _, text := range []string{"fahrenheit", "temperature scale", "horizon"} {
		r := relevance(t, docs, scoring.Query{Text: text})
		if len(r.Hits) == 0 || r.Hits[0].ID != "wx" {
			t.Errorf("%q: hits %v, want wx first", text, ids(r.Hits))
		}
	}
}

// TestOneToolAmongFifty ranks first an agent with one exactly right tool
// among fifty unrelated ones, above an agent that only mentions the
// subject, and reports the tool as the matching passage.
func TestOneToolAmongFifty(t *testing.T) {
	var tools []scoring.ToolText
	for i := range 50 {
		tools = append(tools, scoring.ToolText{Name: fmt.Sprintf("manage_resource_%d", i),
			Description: fmt.Sprintf("Creates, lists and deletes resources of kind %d in the workspace.", i),
			InputProps:  []string{"workspace", "kind", "name"}})
	}
	const right = 37
	tools[right] = scoring.ToolText{Name: "convert_currency", Description: "Converts an amount between currencies at the current exchange rate.",
		InputProps: []string{"amount", "from", "to"}}
	docs := []scoring.Doc{
		{ID: "ops", Name: "Workspace operations", Description: "Administers workspaces.", Tools: tools},
		{ID: "fx", Name: "Currency markets", Description: "Commentary on currency markets and exchange rates."},
		{ID: "calc", Name: "Calculator", Description: "Adds and multiplies numbers."},
	}
	r := relevance(t, docs, scoring.Query{Text: "convert an amount between currencies"})
	if len(r.Hits) == 0 || r.Hits[0].ID != "ops" {
		t.Fatalf("hits %v, want ops first", ids(r.Hits))
	}
	if ex := r.Hits[0].Examples; len(ex) == 0 || !ex[0].Tool || ex[0].Index != right {
		t.Errorf("matches %+v, want tool %d first", ex, right)
	}
}
