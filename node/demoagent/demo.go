package demoagent

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adpnode/adpnode/adp"
	"github.com/adpnode/adpnode/aitp"
	"github.com/adpnode/adpnode/internal/jsonerr"
)

// The demo tools' names.
const (
	Echo      = "echo"      // replies with its input
	WordCount = "wordcount" // counts words, lines and characters of {"text"}
	Reverse   = "reverse"   // reverses {"text"}; streams one chunk per word when asked
)

// MaxText bounds the text the demo tools accept.
const MaxText = 256 << 10

// textInput is the input schema of the tools that take a text.
const textInput = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// Tools returns the card entries of the demo tools, with their input and
// output schemas. Each call returns fresh values, shared with no other
// call: a caller may change them.
func Tools() []adp.Tool {
	yes := func() *bool { b := true; return &b }
	return []adp.Tool{
		{
			Name:         Echo,
			Description:  "Returns its JSON input unchanged.",
			InputSchema:  json.RawMessage(`{"type":"object"}`),
			OutputSchema: json.RawMessage(`{"type":"object"}`),
			Idempotent:   yes(),
		},
		{
			Name:         WordCount,
			Description:  "Counts the words, lines and characters of a text.",
			InputSchema:  json.RawMessage(textInput),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"words":{"type":"integer"},"lines":{"type":"integer"},"chars":{"type":"integer"}}}`),
			Idempotent:   yes(),
		},
		{
			Name:         Reverse,
			Description:  "Reverses a text; streams one chunk per word when the caller accepts a stream.",
			InputSchema:  json.RawMessage(textInput),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
			Streaming:    yes(),
			Idempotent:   yes(),
		},
	}
}

// Serves reports whether name is a demo tool.
func Serves(name string) bool {
	return name == Echo || name == WordCount || name == Reverse
}

// Call serves one call of a demo tool, r.Method; a name that is not one
// answers NOT_FOUND. It is an aitp handler.
func Call(_ context.Context, w aitp.ResponseWriter, r *aitp.Request) error {
	switch r.Method {
	case Echo:
		body := r.Body
		if len(body) == 0 {
			body = []byte("{}")
		}
		if !json.Valid(body) {
			return aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "", "body is not JSON")
		}
		_, err := w.Write(body)
		return err
	case WordCount:
		text, err := text(r.Body)
		if err != nil {
			return err
		}
		lines := 0
		if text != "" {
			lines = strings.Count(text, "\n") + 1
		}
		return writeJSON(w, map[string]int{"words": len(strings.FieldsFunc(text, unicode.IsSpace)), "lines": lines, "chars": utf8.RuneCountInString(text)})
	case Reverse:
		text, err := text(r.Body)
		if err != nil {
			return err
		}
		if r.StreamReply {
			words := strings.Fields(text)
			for i := len(words) - 1; i >= 0; i-- {
				if err := writeJSON(w, map[string]string{"text": reverseString(words[i])}); err != nil {
					return err
				}
			}
			return nil
		}
		return writeJSON(w, map[string]string{"text": reverseString(text)})
	default:
		return aitp.Errorf(aitp.StatusNotFound, aitp.CodeNotFound, "", "no tool %q", r.Method)
	}
}

// text is the "text" member of body, checked.
func text(body []byte) (string, error) {
	var in struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		path, msg := jsonerr.Describe(err)
		return "", aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, path, "%s", msg)
	}
	if in.Text == nil {
		return "", aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/text", "required")
	}
	if len(*in.Text) > MaxText {
		return "", aitp.Errorf(aitp.StatusInvalidRequest, aitp.CodeInvalidRequest, "/text", "longer than %d bytes", MaxText)
	}
	return *in.Text, nil
}

// reverseString reverses s rune by rune.
func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// writeJSON writes v as one reply or chunk.
func writeJSON(w aitp.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
