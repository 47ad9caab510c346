// Package benchfmt writes the inputs of `adpnode bench discover` that the
// dataset converters under scripts/ produce: JSON Lines files of cards and
// of queries (each an adp.discover request with only its query set).
package benchfmt

import (
	"bufio"
	"encoding/json"
	"os"
)

// Request is the adp.discover request of a query: its text alone.
type Request struct {
	Query string `json:"query"`
}

// Query is one line of queries.jsonl.
type Query struct {
	ID      string  `json:"id"`
	Request Request `json:"request"`
}

// NewQuery returns the query id asking text.
func NewQuery(id, text string) Query { return Query{ID: id, Request: Request{Query: text}} }

// WriteLines writes each of vs as one line of JSON to path, HTML
// characters unescaped.
func WriteLines(path string, vs []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
